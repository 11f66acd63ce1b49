package dev.pier.kube;

import dev.pier.config.ConfigException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
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
      File file = new File(kubeconfig);
      if (!file.canRead()) {
        throw new ConfigException("cluster.kubeconfig: cannot read '" + kubeconfig + "'");
      }
      config = Config.fromKubeconfig(ctx, file);
    }
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new Vertx5HttpClientFactory(vertx))
        .build();
  }
}
