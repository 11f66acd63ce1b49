package dev.pier.federation.sync;

import dev.pier.kube.Cluster;
import dev.pier.kube.Informers;
import dev.pier.kube.RbacFiles;
import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The host namespaces an operator opted in to the federation by labelling them {@code
 * pier.dev/federation=<federation name>}: an informer on that label alone, so Pier holds nothing of
 * the other namespaces. A namespace that gains or loses the label is handed to {@code changed}.
 */
final class OptedInNamespaces {
  private final Set<String> names = ConcurrentHashMap.newKeySet();
  private SharedIndexInformer<Namespace> informer;

  boolean contains(String namespace) {
    return names.contains(namespace);
  }

  /** Starts watching; {@code changed} runs on {@code ctx}. Completes after the first list. */
  Future<Void> start(Cluster host, String federation, Context ctx, Consumer<String> changed) {
    informer =
        host.client()
            .namespaces()
            .withLabel(FederationKeys.FEDERATION_LABEL, federation)
            .runnableInformer(0);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Namespace n) {
            String name = n.getMetadata().getName();
            names.add(name);
            ctx.runOnContext(v -> changed.accept(name));
          }

          @Override
          public void onUpdate(Namespace o, Namespace n) {}

          @Override
          public void onDelete(Namespace n, boolean finalStateUnknown) {
            String name = n.getMetadata().getName();
            names.remove(name);
            ctx.runOnContext(v -> changed.accept(name));
          }
        });
    return Informers.start(
        informer, host.name(), "opted-in namespaces", RbacFiles.FEDERATION_HOST, ctx);
  }

  void stop() {
    if (informer != null) {
      informer.stop();
    }
  }
}
