package dev.pier.boot;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.shards.ScaleOutOptions;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.function.Function;

/**
 * The {@code scaleOut.*} options, and the Hazelcast cluster manager and event-bus settings they
 * give: multicast and auto-detection off, a static member list or Kubernetes discovery, the
 * heartbeat timeout, Java deserialization filtered, and Vert.x's own maps and multimaps from its
 * default cluster configuration; the event bus on a fixed port with mutual TLS.
 */
final class ScaleOutSetup {
  private ScaleOutSetup() {}

  /** The settings, or null when scale-out is off; a {@link ConfigException} when they are bad. */
  static ScaleOutOptions options(ConfigValues config) {
    return options(config, System::getenv);
  }

  /**
   * As {@link #options(ConfigValues)}, with the pod's and its node's addresses from {@code env}
   * ({@code POD_IP} and {@code HOST_IP}, which the manifests set from the downward API).
   */
  static ScaleOutOptions options(ConfigValues config, Function<String, String> env) {
    if (!config.get(PierOptions.SCALE_OUT_ENABLED)) {
      return null;
    }
    String podIp = env.apply("POD_IP");
    if (podIp != null && !podIp.isBlank() && podIp.equals(env.apply("HOST_IP"))) {
      throw new ConfigException(
          "scaleOut.enabled: this pod runs on the node's network (POD_IP and HOST_IP are both "
              + podIp
              + "): the replicas' cluster ports would sit on the node's address, where no"
              + " NetworkPolicy applies; run scale-out without hostNetwork");
    }
    ScaleOutOptions options =
        new ScaleOutOptions(
            config.get(PierOptions.SCALE_OUT_SHARDS),
            config.get(PierOptions.SCALE_OUT_CLUSTER_NAME),
            config.get(PierOptions.SCALE_OUT_HOST),
            config.get(PierOptions.SCALE_OUT_PORT),
            config.get(PierOptions.SCALE_OUT_MEMBERS),
            config.get(PierOptions.SCALE_OUT_KUBERNETES_SERVICE),
            config.get(PierOptions.SCALE_OUT_HEARTBEAT_TIMEOUT),
            config.get(PierOptions.SCALE_OUT_LEASE_DURATION),
            config.get(PierOptions.SCALE_OUT_RENEW_DEADLINE),
            config.get(PierOptions.SCALE_OUT_RETRY_PERIOD),
            config.get(PierOptions.SCALE_OUT_EVENT_BUS_PORT));
    String problem = options.problem();
    if (problem != null) {
      throw new ConfigException(problem);
    }
    if (config.get(PierOptions.LEADER_ELECTION_ENABLED)) {
      throw new ConfigException(
          "scaleOut.enabled and leaderElection.enabled are both true: scale-out's shard Leases"
              + " replace the single Lease; turn leaderElection.enabled off");
    }
    return options;
  }

  /**
   * The event bus's TLS files, checked; null with {@code scaleOut.tls.insecure}. A {@link
   * ConfigException} names the option and the path when they are missing or wrong.
   */
  static ScaleOutTls tls(ConfigValues config) {
    return ScaleOutTls.of(config);
  }

  /** The cluster manager of a replica; {@code namespace} is where the Kubernetes Service lives. */
  static HazelcastClusterManager clusterManager(ScaleOutOptions options, String namespace) {
    Config hz = ConfigUtil.loadConfig();
    hz.setClusterName(options.clusterName());
    hz.setProperty("hazelcast.logging.type", "slf4j");
    hz.setProperty("hazelcast.phone.home.enabled", "false");
    hz.setProperty("hazelcast.shutdownhook.enabled", "false");
    hz.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    hz.setProperty(
        "hazelcast.max.no.heartbeat.seconds",
        Long.toString(Math.max(2, options.heartbeatTimeout().toSeconds())));
    // A replica that left comes back as a new member at once, not after the default 5 s wait.
    hz.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    hz.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    hz.getSerializationConfig().setJavaSerializationFilterConfig(SerializationFilter.hazelcast());
    NetworkConfig net = hz.getNetworkConfig();
    net.setPort(options.port()).setPortAutoIncrement(false);
    if (!options.host().isEmpty()) {
      net.getInterfaces().setEnabled(true).addInterface(options.host());
      hz.setProperty("hazelcast.local.localAddress", options.host());
    }
    JoinConfig join = net.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    if (!options.members().isEmpty()) {
      join.getTcpIpConfig().setEnabled(true).setMembers(options.members());
    } else {
      // By service name: the Service's Endpoints (or EndpointSlices) and nothing else. No
      // replica is reached from outside the cluster, so no public addresses are looked up (by
      // default Hazelcast lists every Endpoints object of the namespace on each poll for them).
      // k8s/scale-out.yaml grants exactly what this reads.
      join.getKubernetesConfig()
          .setEnabled(true)
          .setProperty("service-name", options.kubernetesService())
          .setProperty("service-port", Integer.toString(options.port()))
          .setProperty("expose-externally", "false");
      if (!namespace.isEmpty()) {
        join.getKubernetesConfig().setProperty("namespace", namespace);
      }
    }
    return new HazelcastClusterManager(hz);
  }

  /**
   * The event bus listens on the replica's address and {@code scaleOut.eventBusPort}, on mutual TLS
   * unless {@code tls} is null ({@code scaleOut.tls.insecure}).
   */
  static VertxOptions eventBus(VertxOptions vertx, ScaleOutOptions options, ScaleOutTls tls) {
    EventBusOptions bus = vertx.getEventBusOptions();
    if (!options.host().isEmpty()) {
      bus.setHost(options.host()).setClusterPublicHost(options.host());
    }
    bus.setPort(options.eventBusPort());
    if (tls != null) {
      tls.applyTo(bus);
    }
    return vertx;
  }

  /**
   * Filters Java deserialization JVM-wide before the replica joins: from then on, bytes from other
   * processes reach Hazelcast.
   */
  static void filterSerialization() {
    SerializationFilter.install();
  }
}
