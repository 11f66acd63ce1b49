package dev.pier.boot;

import com.hazelcast.config.Config;
import dev.pier.config.ConfigValues;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.testkit.ScaleOutCredentials;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

/** Pier's Hazelcast configuration of a replica, for tests outside {@code boot}. */
public final class ScaleOutHazelcast {
  private ScaleOutHazelcast() {}

  /** Checks the {@code scaleOut.tls.*} files as Pier does at startup; throws what Pier says. */
  public static void checkTls(ConfigValues config) {
    ScaleOutSetup.tls(config);
  }

  public static Config config(ScaleOutOptions options, String namespace) {
    return ScaleOutSetup.clusterManager(options, namespace).getConfig();
  }

  /**
   * A clustered Vert.x node configured as Pier configures a replica, but running nothing of Pier:
   * with {@code tls} its event bus presents those files, without it runs in plain TCP. What a
   * process that reached the cluster port and knows the cluster name can start.
   */
  public static Future<Vertx> node(ScaleOutOptions options, ScaleOutCredentials.Material tls) {
    ScaleOutTls files = tls == null ? null : new ScaleOutTls(tls.cert(), tls.key(), tls.ca());
    return Vertx.builder()
        .with(ScaleOutSetup.eventBus(new VertxOptions(), options, files))
        .withClusterManager(quickJoin(options))
        .buildClustered();
  }

  /**
   * A clustered node whose event bus runs TLS with {@code tls}'s certificate (of another CA) and
   * takes any client: an impostor that waits for replicas to send it what they send replicas.
   */
  public static Future<Vertx> impostor(ScaleOutOptions options, ScaleOutCredentials.Material tls) {
    VertxOptions vertx = ScaleOutSetup.eventBus(new VertxOptions(), options, null);
    vertx
        .getEventBusOptions()
        .setSsl(true)
        .setTrustAll(true)
        .setKeyCertOptions(
            new PemKeyCertOptions()
                .setCertPath(tls.cert().toString())
                .setKeyPath(tls.key().toString()));
    return Vertx.builder().with(vertx).withClusterManager(quickJoin(options)).buildClustered();
  }

  /** Pier's cluster manager, joining without Hazelcast's 5 s wait: tests start many nodes. */
  private static HazelcastClusterManager quickJoin(ScaleOutOptions options) {
    HazelcastClusterManager manager = ScaleOutSetup.clusterManager(options, "");
    manager.getConfig().setProperty("hazelcast.wait.seconds.before.join", "1");
    return manager;
  }
}
