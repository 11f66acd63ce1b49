package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.KubeCredentials;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.cache.Reflector;
import java.lang.reflect.Field;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The bound reaches fabric8's reflector; a fabric8 that moves it fails here, not silently. */
class WatchLifetimeTest {
  @Test
  void everyInformersWatchEndsWithinTheBound() throws Exception {
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                KubeClients.config(new KubeCredentials("https://127.0.0.1:1", "", "t", "", "")))
            .build()) {
      SharedIndexInformer<?> informer = client.services().inAnyNamespace().runnableInformer(0);
      WatchLifetime.bound(informer);
      Field f = DefaultSharedIndexInformer.class.getDeclaredField("reflector");
      f.setAccessible(true);
      Field min = Reflector.class.getDeclaredField("minTimeout");
      min.setAccessible(true);
      assertThat(min.getLong(f.get(informer))).isEqualTo(WatchLifetime.MIN.toSeconds());
      assertThat(WatchLifetime.MIN.multipliedBy(2)).isLessThan(Duration.ofSeconds(60));
    }
  }
}
