package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.federation.FederationOptions;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.Cluster;
import dev.pier.kube.KubeClients;
import dev.pier.kube.ServiceWriter;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import dev.pier.model.KubeCredentials;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Joins through Secrets: what reconnects a member, and what never does. */
class MembersTest {
  private final Vertx vertx = Vertx.vertx();
  private final List<String> told = new ArrayList<>();
  private int connects;
  private int disconnects;
  private final Members members =
      new Members(
          new FederationOptions(),
          new Members.Connector() {
            @Override
            public void check(ClusterSpec spec) {
              if (spec.labels().containsKey("refused")) {
                throw new IllegalArgumentException("annotation x: refused");
              }
            }

            @Override
            public Cluster connect(ClusterSpec spec) {
              connects++;
              KubernetesClient client = KubeClients.create(vertx, spec);
              AsyncKubeApi api = new AsyncKubeApi(client);
              return new Cluster(
                  spec.name(),
                  client,
                  Duration.ZERO,
                  new ServiceWriter(api),
                  (ref, type, reason, message) -> {},
                  api);
            }

            @Override
            public void disconnect(Cluster cluster) {
              disconnects++;
              cluster.close();
            }
          });

  MembersTest() {
    members.listen(
        new Members.Listener() {
          @Override
          public void joined(Member m) {
            told.add("joined " + m.name());
          }

          @Override
          public void left(Member m) {
            told.add("left " + m.name());
          }

          @Override
          public void replaced(Member m) {
            told.add("replaced " + m.name());
          }

          @Override
          public void respecified(Member m) {
            told.add("respecified " + m.name());
          }

          @Override
          public void readinessChanged(Member m) {}
        });
  }

  @AfterEach
  void close() {
    members.close();
    vertx.close().await();
  }

  private static ClusterSpec west(String server, String token, Map<String, String> labels) {
    return new ClusterSpec(
        "west",
        "",
        new KubeCredentials(server, "", token, "", ""),
        "",
        false,
        "us",
        List.of("us-a"),
        false,
        FederationRole.MEMBER,
        labels);
  }

  @Test
  void aSecretEditTheConnectorRefusesLeavesTheMemberConnectedAsItWas() {
    assertThat(members.join(west("https://127.0.0.1:1", "t1", Map.of()))).isNull();
    Member first = members.get("west");

    // Another token would reconnect; with a setting the connector refuses, nothing is touched.
    assertThat(members.join(west("https://127.0.0.1:1", "t2", Map.of("refused", "yes"))))
        .isEqualTo("cluster west: annotation x: refused");

    assertThat(members.get("west")).isSameAs(first);
    assertThat(connects).isEqualTo(1);
    assertThat(disconnects).isZero();
    assertThat(told).containsExactly("joined west");
  }

  @Test
  void placementLabelEditsKeepTheConnection() {
    assertThat(members.join(west("https://127.0.0.1:1", "t1", Map.of("tier", "gold")))).isNull();
    Member first = members.get("west");

    assertThat(members.join(west("https://127.0.0.1:1", "t1", Map.of("tier", "silver")))).isNull();

    assertThat(members.get("west")).isSameAs(first);
    assertThat(first.info().labels()).isEqualTo(Map.of("tier", "silver"));
    assertThat(connects).isEqualTo(1);
    assertThat(told).containsExactly("joined west", "respecified west");
  }

  @Test
  void aRotatedTokenReconnectsAndAnotherServerIsRefused() {
    members.join(west("https://127.0.0.1:1", "t1", Map.of()));

    assertThat(members.join(west("https://127.0.0.1:1", "t2", Map.of()))).isNull();
    assertThat(connects).isEqualTo(2);
    assertThat(told).containsExactly("joined west", "replaced west", "joined west");

    assertThat(members.join(west("https://127.0.0.1:2", "t2", Map.of())))
        .startsWith("data.kubeconfig: the server of cluster west changed");
    assertThat(connects).isEqualTo(2);
  }
}
