package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class CopyApplyTest {
  private static final JsonObject WANT =
      new JsonObject(
          """
          {"apiVersion":"v1","kind":"Service",
           "metadata":{"name":"web","namespace":"shop","labels":{"x":"1","pier.dev/federation":"pier"}},
           "spec":{"ports":[{"port":80,"protocol":"TCP"}]}}
          """);

  /**
   * Moving a map's keys but not the map itself leaves an Update entry that owns the map, and the
   * API server gives that entry the keys back (seen on 1.20): the map moves with Pier's keys, and
   * the earlier entry keeps only what is not Pier's.
   */
  @Test
  void aMigrationMovesTheLabelMapWithPiersKeysAndLeavesOnlyForeignKeys() {
    JsonObject have =
        new JsonObject(
            """
            {"metadata":{"name":"web","namespace":"shop",
               "labels":{"x":"1","y":"2","foreign":"f","pier.dev/federation":"pier"},
               "annotations":{"pier.dev/copied-keys":"labels=x,y;annotations="},
               "managedFields":[{"manager":"fabric8-kubernetes-client","operation":"Update",
                 "apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{
                   "f:labels":{".":{},"f:x":{},"f:y":{},"f:foreign":{},"f:pier.dev/federation":{}},
                   "f:annotations":{".":{},"f:pier.dev/copied-keys":{}}},
                 "f:spec":{"f:ports":{".":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":
                   {".":{},"f:port":{},"f:protocol":{},"f:nodePort":{}}}}}}]},
             "spec":{"ports":[{"port":80,"protocol":"TCP","nodePort":30080}]}}
            """);
    CopyApply.Change change = CopyApply.change(WANT, have);
    assertThat(change).as("y was copied by Pier and the host dropped it").isNotNull();
    assertThat(change.migrate()).isTrue();
    JsonArray fields = CopyApply.migration(WANT, have);
    JsonObject legacy = entry(fields, "fabric8-kubernetes-client");
    JsonObject apply = entry(fields, "pier-federation");
    assertThat(legacy.getJsonObject("fieldsV1"))
        .isEqualTo(
            new JsonObject(
                """
                {"f:metadata":{"f:labels":{"f:foreign":{}}},
                 "f:spec":{"f:ports":{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{"f:nodePort":{}}}}}
                """));
    assertThat(apply.getString("operation")).isEqualTo("Apply");
    JsonObject labels =
        apply.getJsonObject("fieldsV1").getJsonObject("f:metadata").getJsonObject("f:labels");
    assertThat(labels.fieldNames())
        .containsExactlyInAnyOrder(".", "f:x", "f:y", "f:pier.dev/federation");
  }

  @Test
  void nothingMovesWhileNothingNeedsWriting() {
    JsonObject have =
        new JsonObject(
            """
            {"metadata":{"name":"web","namespace":"shop","labels":{"x":"1","pier.dev/federation":"pier"},
               "managedFields":[{"manager":"fabric8-kubernetes-client","operation":"Update",
                 "fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:x":{},"f:pier.dev/federation":{}}}}}]},
             "spec":{"ports":[{"port":80,"protocol":"TCP","targetPort":80}],"type":"ClusterIP"}}
            """);
    assertThat(CopyApply.change(WANT, have)).isNull();
  }

  private static JsonObject entry(JsonArray fields, String manager) {
    return fields.stream()
        .map(e -> (JsonObject) e)
        .filter(e -> manager.equals(e.getString("manager")))
        .findFirst()
        .orElseThrow();
  }
}
