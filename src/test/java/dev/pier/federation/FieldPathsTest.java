package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldPathsTest {
  /** A fieldsV1 set as a 1.20 API server wrote it for a created Service. */
  private static final JsonObject CREATED =
      new JsonObject(
          """
          {"f:metadata":{"f:labels":{".":{},"f:x":{}}},
           "f:spec":{"f:externalTrafficPolicy":{},
             "f:ports":{".":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":
               {".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},
             "f:selector":{".":{},"f:a":{}},"f:type":{}}}
          """);

  private static final String HTTP = "k:{\"port\":80,\"protocol\":\"TCP\"}";

  @Test
  void leavesAreThePathsWithNothingNamedBelowThem() {
    assertThat(FieldPaths.leaves(CREATED))
        .containsExactlyInAnyOrder(
            List.of("f:metadata", "f:labels", "f:x"),
            List.of("f:spec", "f:externalTrafficPolicy"),
            List.of("f:spec", "f:ports", HTTP, "f:name"),
            List.of("f:spec", "f:ports", HTTP, "f:port"),
            List.of("f:spec", "f:ports", HTTP, "f:protocol"),
            List.of("f:spec", "f:ports", HTTP, "f:targetPort"),
            List.of("f:spec", "f:selector", "f:a"),
            List.of("f:spec", "f:type"));
  }

  @Test
  void portsAreKeyedByPortAndProtocolAsTheServerWritesThem() {
    JsonObject config =
        new JsonObject()
            .put(
                "spec",
                new JsonObject()
                    .put(
                        "ports",
                        new JsonArray()
                            .add(new JsonObject().put("port", 80).put("name", "web"))
                            .add(new JsonObject().put("port", 53).put("protocol", "UDP")))
                    .put("externalIPs", new JsonArray().add("192.0.2.1")));
    assertThat(FieldPaths.of(config))
        .contains(
            List.of("f:spec", "f:ports", HTTP, "f:name"),
            List.of("f:spec", "f:ports", "k:{\"port\":53,\"protocol\":\"UDP\"}", "f:protocol"),
            List.of("f:spec", "f:externalIPs"))
        .doesNotContain(List.of("f:spec", "f:externalIPs", "f:0"));
    assertThat(FieldPaths.leaves(FieldPaths.toFieldsV1(FieldPaths.of(config))))
        .contains(List.of("f:spec", "f:ports", HTTP, "f:name"));
  }

  @Test
  void containsMatchesPortsByKeyAndOtherListsWhole() {
    JsonObject have =
        new JsonObject(
            """
            {"spec":{"ports":[{"port":53,"protocol":"UDP","nodePort":31053},
                              {"port":80,"protocol":"TCP","name":"web","nodePort":31080}],
                     "loadBalancerSourceRanges":["10.0.0.0/8","192.168.0.0/16"],
                     "clusterIP":"10.96.0.1"}}
            """);
    JsonObject reordered =
        new JsonObject(
            """
            {"spec":{"ports":[{"port":80,"protocol":"TCP","name":"web"},{"port":53,"protocol":"UDP"}]}}
            """);
    assertThat(FieldPaths.contains(have, reordered)).isTrue();
    JsonObject renamed =
        new JsonObject(
            "{\"spec\":{\"ports\":[{\"port\":80,\"protocol\":\"TCP\",\"name\":\"x\"}]}}");
    assertThat(FieldPaths.contains(have, renamed)).isFalse();
    JsonObject fewerRanges =
        new JsonObject("{\"spec\":{\"loadBalancerSourceRanges\":[\"10.0.0.0/8\"]}}");
    assertThat(FieldPaths.contains(have, fewerRanges)).isFalse();
    JsonObject empties = new JsonObject("{\"metadata\":{\"labels\":{}},\"spec\":{\"x\":[]}}");
    assertThat(FieldPaths.contains(have, empties)).isTrue();
  }

  @Test
  void valueAtFollowsPortKeys() {
    JsonObject have =
        new JsonObject(
            "{\"spec\":{\"ports\":[{\"port\":80,\"protocol\":\"TCP\",\"nodePort\":3}]}}");
    assertThat(FieldPaths.valueAt(have, List.of("f:spec", "f:ports", HTTP, "f:nodePort")))
        .isEqualTo(3);
    assertThat(FieldPaths.valueAt(have, List.of("f:spec", "f:type"))).isNull();
  }
}
