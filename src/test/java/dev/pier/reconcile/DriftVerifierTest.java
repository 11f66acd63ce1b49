package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.ServiceKey;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DriftVerifierTest {

  @Test
  void thePeriodIsSpreadOverTheKeysWithinTheRateCap() {
    assertThat(DriftVerifier.tickMillis(Duration.ofMinutes(10), 10_000)).isEqualTo(60);
    assertThat(DriftVerifier.tickMillis(Duration.ofMinutes(10), 0)).isEqualTo(600_000);
    assertThat(DriftVerifier.tickMillis(Duration.ofSeconds(1), 10_000)).isEqualTo(10);
  }

  @Test
  void everyServedKeyIsVerifiedOncePerRound() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      List<ServiceKey> keys =
          List.of(new ServiceKey("c", "ns", "a"), new ServiceKey("c", "ns", "b"));
      List<ServiceKey> submitted = new CopyOnWriteArrayList<>();
      DriftVerifier verifier =
          new DriftVerifier(vertx, Duration.ofMillis(200), () -> keys, submitted::add);
      vertx.runOnContext(v -> verifier.start());
      Thread.sleep(700);
      vertx.runOnContext(v -> verifier.stop());
      Thread.sleep(50);
      int n = submitted.size();
      assertThat(n).isBetween(4, 8);
      assertThat(submitted.subList(0, 4))
          .containsExactlyInAnyOrderElementsOf(
              List.of(keys.get(0), keys.get(1), keys.get(0), keys.get(1)));
      Thread.sleep(300);
      assertThat(submitted).as("stopped").hasSize(n);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
