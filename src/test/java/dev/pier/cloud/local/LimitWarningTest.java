package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.model.ServiceRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** At most one limit Warning per Service per interval, on a clock the test moves. */
class LimitWarningTest {

  private final AtomicLong now = new AtomicLong();
  private final List<String> messages = new ArrayList<>();
  private final EventSink sink =
      (ref, type, reason, message) -> {
        assertThat(type).isEqualTo(EventSink.WARNING);
        assertThat(reason).isEqualTo(EventReasons.LIMIT_REACHED);
        assertThat(ref.name()).isEqualTo("web");
        messages.add(message);
      };
  private final LimitWarning warning =
      new LimitWarning(
          ServiceRef.of(LbTestSupport.key("web"), "uid-web"),
          sink,
          Duration.ofMinutes(5),
          now::get);

  private void at(Duration t, String message) {
    now.set(t.toNanos());
    warning.bite(message);
  }

  @Test
  void theFirstBiteWarnsAndTheNextOnlyAfterTheIntervalCountingTheOnesBetween() {
    at(Duration.ZERO, "one");
    at(Duration.ofSeconds(1), "two");
    at(Duration.ofMinutes(4).plusSeconds(59), "three");
    assertThat(messages).containsExactly("one");

    at(Duration.ofMinutes(5), "four");
    at(Duration.ofMinutes(5).plusSeconds(1), "five");
    assertThat(messages)
        .containsExactly("one", "four (2 more since the last LoadBalancerLimitReached Event)");

    at(Duration.ofMinutes(20), "six");
    assertThat(messages)
        .hasSize(3)
        .last()
        .isEqualTo("six (1 more since the last LoadBalancerLimitReached Event)");
  }
}
