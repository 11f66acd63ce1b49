package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.testkit.ScaleOutCredentials;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.dns.DNS_PING;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaleOutSetupTest {
  private static ConfigValues config(Map<String, String> env) {
    Map<String, String> all = new HashMap<>(env);
    all.put(PierOptions.SCALE_OUT_ENABLED.envName(), "true");
    return new ConfigLoader(PierOptions.ALL, all::get).load(null);
  }

  @Test
  void offByDefault() {
    assertThat(ScaleOutSetup.options(new ConfigLoader(PierOptions.ALL, k -> null).load(null)))
        .isNull();
  }

  /**
   * On the node's network (hostNetwork: the pod's IP is the node's) the cluster ports sit on the
   * node's address, where no NetworkPolicy applies: scale-out refuses to start there.
   */
  @Test
  void scaleOutRefusesToRunOnTheNodesNetwork() {
    ConfigValues config = config(Map.of(PierOptions.SCALE_OUT_MEMBERS.envName(), "10.0.0.1:5701"));
    Map<String, String> hostNetwork = Map.of("POD_IP", "10.0.0.1", "HOST_IP", "10.0.0.1");
    assertThatThrownBy(() -> ScaleOutSetup.options(config, hostNetwork::get))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("scaleOut.enabled")
        .hasMessageContaining("the node's network")
        .hasMessageContaining("POD_IP and HOST_IP are both 10.0.0.1");
    Map<String, String> podNetwork = Map.of("POD_IP", "10.244.1.7", "HOST_IP", "10.0.0.1");
    assertThat(ScaleOutSetup.options(config, podNetwork::get)).isNotNull();
  }

  @Test
  void replicasNeedAWayToFindEachOther() {
    assertThatThrownBy(() -> ScaleOutSetup.options(config(Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("scaleOut.members or scaleOut.kubernetesService must be set");
  }

  @Test
  void aStaticListAndKubernetesDiscoveryAreNotBothSet() {
    assertThatThrownBy(
            () ->
                ScaleOutSetup.options(
                    config(
                        Map.of(
                            PierOptions.SCALE_OUT_MEMBERS.envName(), "10.0.0.1:5701",
                            PierOptions.SCALE_OUT_KUBERNETES_SERVICE.envName(), "pier-replicas"))))
        .hasMessageContaining("set one of scaleOut.members (10.0.0.1:5701)")
        .hasMessageContaining("scaleOut.kubernetesService (pier-replicas)");
  }

  @Test
  void theRenewDeadlineIsShorterThanTheLeaseAndTheRetryShorterThanTheDeadline() {
    assertThatThrownBy(
            () ->
                ScaleOutSetup.options(
                    config(
                        Map.of(
                            PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701",
                            PierOptions.SCALE_OUT_RENEW_DEADLINE.envName(), "20s"))))
        .hasMessageContaining("scaleOut.renewDeadline (PT20S) must be shorter than")
        .hasMessageContaining("scaleOut.leaseDuration (PT15S)");
    assertThatThrownBy(
            () ->
                ScaleOutSetup.options(
                    config(
                        Map.of(
                            PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701",
                            PierOptions.SCALE_OUT_RETRY_PERIOD.envName(), "10s"))))
        .hasMessageContaining("scaleOut.retryPeriod (PT10S) must be shorter than");
  }

  @Test
  void theShardLeasesReplaceTheSingleLease() {
    assertThatThrownBy(
            () ->
                ScaleOutSetup.options(
                    config(
                        Map.of(
                            PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701",
                            PierOptions.LEADER_ELECTION_ENABLED.envName(), "true"))))
        .hasMessageContaining("scaleOut.enabled and leaderElection.enabled are both true");
  }

  @Test
  void aBadMemberIsNamedWithItsOption() {
    assertThatThrownBy(() -> config(Map.of(PierOptions.SCALE_OUT_MEMBERS.envName(), "a b")))
        .hasMessageContaining("scaleOut.members");
  }

  @Test
  void theDefaultsGiveThirtySecondsWithoutAnOwnerAtMost() {
    ScaleOutOptions options =
        ScaleOutSetup.options(
            config(Map.of(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701")));
    assertThat(options.shards()).isEqualTo(32);
    assertThat(options.ownerlessBound()).isEqualTo(Duration.ofSeconds(30));
  }

  static ScaleOutOptions kubernetes(String service) {
    return new ScaleOutOptions(
        32,
        "pier",
        "",
        5701,
        List.of(),
        service,
        ScaleOutOptions.DEFAULT_CLUSTER_DOMAIN,
        Duration.ofSeconds(10),
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        Duration.ofSeconds(5),
        ScaleOutOptions.DEFAULT_EVENT_BUS_PORT);
  }

  /**
   * Discovery through the cluster's DNS asks for the headless Service's full name (the JDK's DNS
   * client applies no search domains), and reads nothing from the API server: no RBAC for it.
   * Failure detection runs over the transport's own connections, with no second socket.
   */
  @Test
  void kubernetesDiscoveryAsksTheClusterDnsForTheHeadlessServiceByItsFullName() throws Exception {
    try (JChannel channel =
        ReplicaChannel.create(kubernetes("pier-replicas"), "pier", null, "replica-a")) {
      ProtocolStack stack = channel.getProtocolStack();
      assertThat((Object) stack.findProtocol(DNS_PING.class)).isNotNull();
      assertThat((Object) stack.findProtocol(TCPPING.class)).isNull();
      assertThat((Object) stack.findProtocol(FD_ALL3.class)).isNotNull();
      assertThat(stack.printProtocolSpec(true))
          .contains("dns_query=pier-replicas.pier.svc.cluster.local")
          .doesNotContain("FD_SOCK");
      assertThat(channel.name()).isEqualTo("replica-a");
    }
  }

  @Test
  void aStaticMemberListIsTheDiscoveryAndTheTransportBindsTheGivenAddressAndPort()
      throws Exception {
    ScaleOutOptions options =
        ScaleOutSetup.options(
            config(
                Map.of(
                    PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:7801,127.0.0.2",
                    PierOptions.SCALE_OUT_HOST.envName(), "127.0.0.1",
                    PierOptions.SCALE_OUT_PORT.envName(), "7801")));
    try (JChannel channel = ReplicaChannel.create(options, "", null, "replica-b")) {
      String spec = channel.getProtocolStack().printProtocolSpec(true);
      assertThat(spec).contains("bind_port=7801").contains("bind_addr=127.0.0.1");
      assertThat(spec).contains("127.0.0.1[7801]").contains("127.0.0.2[7801]");
      assertThat((Object) channel.getProtocolStack().findProtocol(DNS_PING.class)).isNull();
    }
  }

  /** Scale-out without the event bus's TLS files does not start, and says how to make them. */
  @Test
  void scaleOutWithoutTlsFilesFailsNamingTheOptionsAndHowToMakeThem() {
    ConfigValues config = config(Map.of(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701"));
    assertThatThrownBy(() -> ScaleOutSetup.tls(config))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("scaleOut.tls.certFile, scaleOut.tls.keyFile, scaleOut.tls.caFile")
        .hasMessageContaining("pier scale-out-certs --out DIR")
        .hasMessageContaining("scaleOut.tls.insecure: true");
    Map<String, String> onlyCa = new HashMap<>(ScaleOutCredentials.shared().env());
    onlyCa.remove(PierOptions.SCALE_OUT_TLS_KEY_FILE.envName());
    onlyCa.put(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701");
    assertThatThrownBy(() -> ScaleOutSetup.tls(config(onlyCa)))
        .hasMessageContaining("and scaleOut.tls.keyFile is not set");
  }

  @Test
  void aMissingTlsFileIsNamedWithItsOptionAndPath(@TempDir Path dir) {
    Map<String, String> env = new HashMap<>(ScaleOutCredentials.shared().env());
    env.put(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701");
    env.put(PierOptions.SCALE_OUT_TLS_CA_FILE.envName(), dir.resolve("nope.crt").toString());
    assertThatThrownBy(() -> ScaleOutSetup.tls(config(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("scaleOut.tls.caFile: cannot read " + dir.resolve("nope.crt"));
  }

  /** A certificate of another CA would be refused by every peer: refused at startup already. */
  @Test
  void aCertificateTheCaDidNotSignIsRefused(@TempDir Path dir) {
    ScaleOutCredentials.Material other = ScaleOutCredentials.other(dir);
    Map<String, String> env = new HashMap<>(ScaleOutCredentials.shared().env());
    env.put(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701");
    env.put(PierOptions.SCALE_OUT_TLS_CERT_FILE.envName(), other.cert().toString());
    env.put(PierOptions.SCALE_OUT_TLS_KEY_FILE.envName(), other.key().toString());
    assertThatThrownBy(() -> ScaleOutSetup.tls(config(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not signed by a CA of scaleOut.tls.caFile");
    Map<String, String> good = new HashMap<>(ScaleOutCredentials.shared().env());
    good.put(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701");
    assertThat(ScaleOutSetup.tls(config(good))).isNotNull();
  }

  @Test
  void theEventBusRunsOnMutualTlsOnItsFixedPort() {
    Map<String, String> env = new HashMap<>(ScaleOutCredentials.shared().env());
    env.put(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701");
    ConfigValues config = config(env);
    EventBusOptions bus =
        ScaleOutSetup.eventBus(
                new VertxOptions(), ScaleOutSetup.options(config), ScaleOutSetup.tls(config))
            .getEventBusOptions();
    assertThat(bus.getPort()).isEqualTo(5711);
    assertThat(bus.isSsl()).isTrue();
    assertThat(bus.getClientAuth()).isEqualTo(ClientAuth.REQUIRED);
    assertThat(bus.isTrustAll()).isFalse();
  }

  @Test
  void insecureRunsWithoutTlsAndOnlyWithoutTlsFiles() {
    ConfigValues insecure =
        config(
            Map.of(
                PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701",
                PierOptions.SCALE_OUT_TLS_INSECURE.envName(), "true"));
    assertThat(ScaleOutSetup.tls(insecure)).isNull();
    assertThat(
            ScaleOutSetup.eventBus(new VertxOptions(), ScaleOutSetup.options(insecure), null)
                .getEventBusOptions()
                .isSsl())
        .isFalse();
    Map<String, String> both = new HashMap<>(ScaleOutCredentials.shared().env());
    both.put(PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701");
    both.put(PierOptions.SCALE_OUT_TLS_INSECURE.envName(), "true");
    assertThatThrownBy(() -> ScaleOutSetup.tls(config(both)))
        .hasMessageContaining("scaleOut.tls.insecure is true and scaleOut.tls.certFile");
  }

  @Test
  void theEventBusAndTheMembershipNeedAPortEach() {
    assertThatThrownBy(
            () ->
                ScaleOutSetup.options(
                    config(
                        Map.of(
                            PierOptions.SCALE_OUT_MEMBERS.envName(), "127.0.0.1:5701",
                            PierOptions.SCALE_OUT_EVENT_BUS_PORT.envName(), "5701"))))
        .hasMessageContaining("scaleOut.eventBusPort and scaleOut.port are both 5701");
  }
}
