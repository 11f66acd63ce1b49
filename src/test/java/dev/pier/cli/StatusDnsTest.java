package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.MemberStatus;
import dev.pier.model.FederationKeys;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.PowerDnsServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code pier status} with DNS: each federated Service's names under {@code --dns-suffix}, with
 * what a real PowerDNS server answers for them now; the names held as last seen, as the host
 * Service records it; and {@code pier status NAMESPACE/NAME} with the Service's Events.
 */
@RealKubeApiServer
class StatusDnsTest {
  private static final String ZONE = "fed.example.";

  record Run(int status, String out, String err) {}

  private static Run pier(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Cli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void theNamesOfEachServiceWithTheirAnswersAndOneServiceWithItsEvents(KubeApiServer host) {
    Instant heldSince = Instant.now().minus(2, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
    host.client()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("pier").endMetadata().build())
        .createOr(r -> r.update());
    String ns = host.createNamespace("shop");
    host.client()
        .secrets()
        .inNamespace("pier")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("member-east")
                .addToLabels(FederationKeys.CLUSTER_SECRET_LABEL, "east")
                .addToAnnotations(
                    FederationKeys.MEMBER_STATUS_ANNOTATION,
                    new MemberStatus(
                            true,
                            Instant.now(),
                            Instant.now(),
                            "v1.20.2",
                            "eu",
                            List.of("eu-a"),
                            "token",
                            null,
                            "")
                        .toJson())
                .endMetadata()
                .build())
        .create();
    host.client()
        .services()
        .inNamespace(ns)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .addToAnnotations(FederationKeys.FEDERATED_ANNOTATION, "true")
                .addToAnnotations(
                    FederationKeys.INGRESSES_ANNOTATION,
                    "{\"items\":[{\"cluster\":\"east\",\"items\":[{\"ip\":\"192.0.2.10\"}]}]}")
                .addToAnnotations(FederationKeys.NAMES_HELD_ANNOTATION, heldSince.toString())
                .endMetadata()
                .withNewSpec()
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .create();
    host.client()
        .v1()
        .events()
        .inNamespace(ns)
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName("web.created")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Service")
                .withNamespace(ns)
                .withName("web")
                .withApiVersion("v1")
                .endInvolvedObject()
                .withType("Normal")
                .withReason("CreatedInCluster")
                .withMessage("Cluster east: created")
                .withCount(1)
                .withLastTimestamp(Instant.now().toString())
                .withNewSource()
                .withComponent("pier")
                .endSource()
                .build())
        .create();

    try (PowerDnsServer pdns = PowerDnsServer.create()) {
      pdns.createZone(ZONE);
      String global = "web." + ns + ".pier.svc.fed.example.";
      String region = "web." + ns + ".pier.svc.eu.fed.example.";
      String zone = "web." + ns + ".pier.svc.eu-a.eu.fed.example.";
      pdns.putForeign(ZONE, global, "A", "192.0.2.10");
      pdns.putForeign(ZONE, region, "A", "192.0.2.10");
      // The zone name falls back to its region: a CNAME, as Pier writes for an unhealthy zone.
      pdns.putForeign(ZONE, zone, "CNAME", region);
      String server = "127.0.0.1:" + pdns.dnsPort();

      Run table =
          pier(
              "status",
              "--host-kubeconfig",
              host.kubeconfigPath().toString(),
              "--dns-suffix",
              "fed.example",
              "--dns-server",
              server);

      assertThat(table.status()).as(table.out() + table.err()).isZero();
      assertThat(table.out().lines().map(String::stripTrailing).toList())
          .anySatisfy(
              l ->
                  assertThat(l)
                      .startsWith(
                          "  "
                              + ns
                              + "/web: status and DNS names held as last seen since "
                              + heldSince)
                      .endsWith("ago): too few of its members are reachable"))
          .anySatisfy(l -> assertThat(l).startsWith(global).endsWith(" 192.0.2.10"))
          .anySatisfy(l -> assertThat(l).startsWith(region).endsWith(" 192.0.2.10"))
          .anySatisfy(l -> assertThat(l).startsWith(zone).contains("CNAME " + region));

      Run one =
          pier(
              "status",
              ns + "/web",
              "--host-kubeconfig",
              host.kubeconfigPath().toString(),
              "--dns-suffix",
              "fed.example",
              "--dns-server",
              server,
              "-o",
              "json");

      assertThat(one.status()).as(one.out() + one.err()).isZero();
      JsonObject json = new JsonObject(one.out());
      assertThat(json.getString("namesHeldSince")).isEqualTo(heldSince.toString());
      assertThat(json.getJsonArray("names").getJsonObject(0).getString("name")).isEqualTo(global);
      assertThat(json.getJsonArray("names").getJsonObject(0).getJsonArray("answers").getList())
          .containsExactly("192.0.2.10");
      // The apiserver may add Events of its own to the Service (ClusterIPNotAllocated).
      assertThat(json.getJsonArray("events").stream().map(JsonObject.class::cast))
          .anySatisfy(
              e -> {
                assertThat(e.getString("reason")).isEqualTo("CreatedInCluster");
                assertThat(e.getString("message")).isEqualTo("Cluster east: created");
              });

      pdns.deleteForeign(ZONE, region, "A");
      Run gone =
          pier(
              "status",
              ns + "/web",
              "--host-kubeconfig",
              host.kubeconfigPath().toString(),
              "--dns-suffix",
              "fed.example",
              "--dns-server",
              server);
      assertThat(gone.out().lines().toList())
          .anySatisfy(l -> assertThat(l).startsWith(region).endsWith("NXDOMAIN"))
          .anySatisfy(l -> assertThat(l).contains("Normal").contains("Cluster east: created"));
    }

    Run missing =
        pier("status", ns + "/nope", "--host-kubeconfig", host.kubeconfigPath().toString());
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err()).contains("no federated Service " + ns + "/nope on the host");
    Run bad =
        pier("status", "--host-kubeconfig", host.kubeconfigPath().toString(), "--dns-server", "x");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("flag --dns-suffix: needed with --dns-server");
  }
}
