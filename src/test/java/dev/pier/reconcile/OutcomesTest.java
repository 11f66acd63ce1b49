package dev.pier.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.ProviderException;
import dev.pier.kube.KubeApiException;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OutcomesTest {
  private static final Set<WorkKind> KINDS = Set.of(WorkKind.RECONCILE);

  @Test
  void providerErrorKindsMapOntoQueueOutcomes() {
    assertThat(Outcomes.forFailure(new ProviderException.Retry("x"), KINDS).outcome())
        .isEqualTo(WorkResult.Outcome.RETRY);
    WorkResult after =
        Outcomes.forFailure(new ProviderException.RetryAfter("x", Duration.ofSeconds(7)), KINDS);
    assertThat(after.outcome()).isEqualTo(WorkResult.Outcome.RETRY_AFTER);
    assertThat(after.delay()).isEqualTo(Duration.ofSeconds(7));
    assertThat(
            Outcomes.forFailure(
                    new ProviderException.InvalidInput("spec.loadBalancerIP", "1.2.3.4", "x"),
                    KINDS)
                .outcome())
        .isEqualTo(WorkResult.Outcome.PERMANENT);
    assertThat(Outcomes.forFailure(new IllegalStateException("?"), KINDS).outcome())
        .isEqualTo(WorkResult.Outcome.RETRY);
  }

  @Test
  void apiErrorsRetryExceptNotFound() {
    assertThat(Outcomes.forFailure(new KubeApiException(404, "gone"), KINDS).outcome())
        .isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(Outcomes.forFailure(new KubeApiException(409, "conflict"), KINDS).outcome())
        .isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(Outcomes.forFailure(new KubeApiException(500, "oops"), KINDS).outcome())
        .isEqualTo(WorkResult.Outcome.RETRY);
  }
}
