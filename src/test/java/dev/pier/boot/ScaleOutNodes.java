package dev.pier.boot;

import dev.pier.config.ConfigValues;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.testkit.ScaleOutCredentials;
import dev.pier.testkit.TrustAll;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Clustered Vert.x nodes configured as Pier configures a replica, for tests outside {@code boot}.
 */
public final class ScaleOutNodes {
  private ScaleOutNodes() {}

  /** Checks the {@code scaleOut.tls.*} files as Pier does at startup; throws what Pier says. */
  public static void checkTls(ConfigValues config) {
    ScaleOutSetup.tls(config);
  }

  /**
   * A node on loopback as Pier configures a replica, without TLS, for tests of what runs between
   * replicas that stop none of them: its heartbeat timeout (30 s) is one no loaded machine reaches,
   * so that no node suspects another in the middle of a test (CI saw it at 2 s).
   */
  public static Future<Vertx> plain(String clusterName, int port, List<String> peers) {
    return node(
        new ScaleOutOptions(
            32,
            clusterName,
            "127.0.0.1",
            port,
            peers,
            "",
            ScaleOutOptions.DEFAULT_CLUSTER_DOMAIN,
            Duration.ofSeconds(30),
            Duration.ofSeconds(3),
            Duration.ofSeconds(2),
            Duration.ofMillis(500),
            0),
        null);
  }

  /**
   * A clustered Vert.x node configured as Pier configures a replica, but running nothing of Pier:
   * with {@code tls} its membership and event bus present those files, without it both run in plain
   * TCP. What a process that reached the cluster port and knows the cluster name can start.
   */
  public static Future<Vertx> node(ScaleOutOptions options, ScaleOutCredentials.Material tls) {
    ScaleOutTls files = tls == null ? null : new ScaleOutTls(tls.cert(), tls.key(), tls.ca());
    return Vertx.builder()
        .with(ScaleOutSetup.eventBus(new VertxOptions(), options, files))
        .withClusterManager(ScaleOutSetup.clusterManager(options, "", files))
        .buildClustered();
  }

  /**
   * A clustered node whose membership and event bus run TLS with {@code tls}'s certificate (of
   * another CA) and take any peer: an impostor that waits for replicas to let it in.
   */
  public static Future<Vertx> impostor(ScaleOutOptions options, ScaleOutCredentials.Material tls) {
    VertxOptions vertx = ScaleOutSetup.eventBus(new VertxOptions(), options, null);
    PemKeyCertOptions own =
        new PemKeyCertOptions().setCertPath(tls.cert().toString()).setKeyPath(tls.key().toString());
    vertx.getEventBusOptions().setSsl(true).setTrustAll(true).setKeyCertOptions(own);
    try {
      KeyManagerFactory keys =
          new PemKeyCertOptions()
              .setCertValue(Buffer.buffer(Files.readAllBytes(tls.cert())))
              .setKeyValue(Buffer.buffer(Files.readAllBytes(tls.key())))
              .getKeyManagerFactory(null);
      SSLContext trustingAll = TrustAll.context(keys.getKeyManagers());
      return Vertx.builder()
          .with(vertx)
          .withClusterManager(
              ReplicaClusterManager.over(
                  ReplicaChannel.create(options, "", trustingAll, UUID.randomUUID().toString()),
                  options.clusterName()))
          .buildClustered();
    } catch (Exception e) {
      return Future.failedFuture(e);
    }
  }
}
