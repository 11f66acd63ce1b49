package dev.pier.kube;

import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.netty.handler.ssl.OpenSsl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pays the one-time costs of the first Kubernetes client on a second thread while the main thread
 * reads the configuration: loading BoringSSL and building the kubeconfig model's deserializer take
 * about 0.2 s of a cold start, all of it class initialization, and the main thread would otherwise
 * wait for them one after the other. It reads no file and contacts nothing.
 */
public final class ClientWarmup {
  private static final Logger log = LoggerFactory.getLogger(ClientWarmup.class);

  private ClientWarmup() {}

  /** Starts the warm-up on a daemon thread and returns at once. */
  public static void start() {
    Thread t = new Thread(ClientWarmup::run, "pier-client-warmup");
    t.setDaemon(true);
    t.start();
  }

  static void run() {
    try {
      OpenSsl.isAvailable();
      Serialization.unmarshal("apiVersion: v1\nkind: Config\n", Config.class);
    } catch (RuntimeException | LinkageError e) {
      // The real client build meets the same problem and reports it; here it only costs time.
      log.debug("Client warm-up: {}", e.toString());
    }
  }
}
