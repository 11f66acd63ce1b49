package dev.pier.kube;

import dev.pier.model.ClusterSpec;
import dev.pier.model.KubeCredentials;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.File;

/** Builds fabric8 clients that run on Pier's own Vert.x instance. */
public final class KubeClients {
  private KubeClients() {}

  /**
   * A client for the given kubeconfig and context; with an empty kubeconfig, fabric8's
   * auto-configuration ({@code KUBECONFIG}, {@code ~/.kube/config}, else the in-cluster account).
   */
  public static KubernetesClient create(Vertx vertx, String kubeconfig, String context) {
    Config config;
    String ctx = context == null || context.isEmpty() ? null : context;
    if (kubeconfig == null || kubeconfig.isEmpty()) {
      config = Config.autoConfigure(ctx);
    } else {
      config = Config.fromKubeconfig(ctx, new File(kubeconfig));
    }
    return build(vertx, config);
  }

  /**
   * A client for a configured or joined cluster: the checked credentials of a member joined through
   * a Secret, its kubeconfig file, the pod's service account ({@code inCluster}), else fabric8's
   * auto-configuration.
   */
  public static KubernetesClient create(Vertx vertx, ClusterSpec spec) {
    if (spec.credentials() != null) {
      return build(vertx, config(spec.credentials()));
    }
    return create(vertx, spec.inCluster() ? "" : spec.kubeconfig(), spec.context());
  }

  /**
   * A fabric8 configuration made of the credentials alone: not auto-configured, so nothing comes
   * from Pier's environment, system properties, kubeconfig files or service account, and a token
   * refresh never reads one.
   */
  static Config config(KubeCredentials c) {
    ConfigBuilder b = new ConfigBuilder(Config.empty()).withMasterUrl(c.server());
    if (!c.caData().isEmpty()) {
      b.withCaCertData(c.caData());
    }
    if (!c.token().isEmpty()) {
      b.withOauthToken(c.token());
    }
    if (!c.clientCertData().isEmpty()) {
      b.withClientCertData(c.clientCertData())
          .withClientKeyData(c.clientKeyData())
          .withClientKeyAlgo(Config.getKeyAlgorithm(null, c.clientKeyData()));
    }
    return b.build();
  }

  /**
   * Requests multiplex over HTTP/2; watches stay WebSockets, one HTTP/1.1 connection each. That is
   * the transport proven here: an HTTP watch over this client's HTTP/2 connection stopped after
   * exactly its first 64 KiB (HTTP/2's initial flow-control window, so no window credit came back)
   * in the performance work, and the cause inside fabric8's Vert.x transport is not known yet.
   */
  private static KubernetesClient build(Vertx vertx, Config config) {
    config.setOnlyHttpWatches(false);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new Http2ClientFactory(vertx))
        .build();
  }

  /** Whether the API server connections use BoringSSL (else the JDK's TLS). */
  static boolean usesOpenSsl() {
    return Http2ClientFactory.OPENSSL;
  }

  /**
   * fabric8's Vert.x 5 client speaks HTTP/1.1 by default: one TLS connection per request in flight,
   * so a cold start with hundreds of writes at once spends its first seconds in TLS handshakes.
   * HTTP/2 (ALPN, as kubectl and client-go use) multiplexes them over a few connections; servers
   * without HTTP/2 still get HTTP/1.1.
   */
  private static final class Http2ClientFactory extends Vertx5HttpClientFactory {
    /**
     * BoringSSL (netty-tcnative) where it loads: the JDK's AES-GCM runs without its CPU intrinsics
     * under the C1-only JIT that Pier's JVM flags choose, and cost a quarter of Pier's CPU in a
     * cold start. {@code -Dpier.kube.tls=jdk} keeps the JDK's TLS (for a FIPS-validated provider).
     */
    private static final boolean OPENSSL =
        !"jdk".equals(System.getProperty("pier.kube.tls")) && OpenSSLEngineOptions.isAvailable();

    Http2ClientFactory(Vertx vertx) {
      super(vertx);
    }

    @Override
    protected void additionalConfig(
        WebClientOptions options, WebSocketClientOptions webSocketOptions, PoolOptions pool) {
      configure(options, webSocketOptions, OPENSSL);
    }
  }

  /**
   * HTTP/2 for requests; BoringSSL, when it loads, for requests and for the watches' WebSockets
   * alike: the watches carry every Service and Node in full, more bytes than the writes.
   */
  static void configure(
      WebClientOptions options, WebSocketClientOptions webSocketOptions, boolean openSsl) {
    if (options.isSsl()) {
      options.setProtocolVersion(HttpVersion.HTTP_2).setUseAlpn(true);
      if (openSsl) {
        options.setSslEngineOptions(new OpenSSLEngineOptions());
      }
    }
    if (webSocketOptions.isSsl() && openSsl) {
      webSocketOptions.setSslEngineOptions(new OpenSSLEngineOptions());
    }
  }
}
