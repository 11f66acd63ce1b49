package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.shards.ScaleOutOptions;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.spi.cluster.ClusterManager;
import java.util.UUID;
import java.util.function.Function;
import org.jgroups.JChannel;

/**
 * The {@code scaleOut.*} options, and the cluster manager and event-bus settings they give: the
 * membership on JGroups with mutual TLS, a static member list or the headless Service's DNS name,
 * the heartbeat timeout, Java deserialization filtered; the event bus on a fixed port with mutual
 * TLS from the same files.
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
            config.get(PierOptions.SCALE_OUT_CLUSTER_DOMAIN),
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

  /**
   * The cluster manager of a replica: Infinispan over a JGroups channel on mutual TLS with {@code
   * tls}'s files (plain TCP when null: {@code scaleOut.tls.insecure}); {@code namespace} is where
   * the headless Service lives. The member's node id is a fresh UUID.
   */
  static ClusterManager clusterManager(ScaleOutOptions options, String namespace, ScaleOutTls tls) {
    if (System.getProperty("org.jboss.logging.provider") == null) {
      System.setProperty("org.jboss.logging.provider", "slf4j");
    }
    JChannel channel =
        ReplicaChannel.create(
            options,
            namespace,
            tls == null ? null : tls.sslContext(),
            UUID.randomUUID().toString());
    return ReplicaClusterManager.over(channel, options.clusterName());
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
   * processes reach the cluster manager.
   */
  static void filterSerialization() {
    SerializationFilter.install();
  }
}
