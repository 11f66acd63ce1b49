package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaderGateTest {
  private final AtomicLong now = new AtomicLong(5_000_000_000L);
  private final LeaderGate gate = LeaderGate.forLease(Duration.ofSeconds(3), now::get);

  @Test
  void closedUntilThisProcessLeadsOnARenewedLease() {
    assertThat(gate.isOpen()).isFalse();
    gate.lead();
    assertThat(gate.isOpen()).as("leading without a renewal").isFalse();
    gate.renewed(now.get());
    assertThat(gate.isOpen()).isTrue();
  }

  @Test
  void closesWhenNoRenewalSucceededForTheRenewDeadline() {
    gate.renewed(now.get());
    gate.lead();
    now.addAndGet(Duration.ofMillis(2_999).toNanos());
    assertThat(gate.isOpen()).isTrue();
    now.addAndGet(Duration.ofMillis(1).toNanos());
    assertThat(gate.isOpen()).as("no renewal for the renew deadline").isFalse();
    gate.renewed(now.get());
    assertThat(gate.isOpen()).as("renewed again").isTrue();
  }

  @Test
  void aRequestGoesOnlyInTheTermItsCallStartedIn() {
    gate.renewed(now.get());
    gate.lead();
    long term = gate.term();
    assertThat(gate.refusal(term, "ensure")).isNull();
    // Frozen past the renew deadline: the call's next request is refused.
    now.addAndGet(Duration.ofSeconds(5).toNanos());
    assertThat(gate.refusal(term, "ensure")).isInstanceOf(NotLeadingException.class);
    // Leading again later is another term: the old call stays refused, a new one goes.
    gate.close();
    gate.renewed(now.get());
    gate.lead();
    assertThat(gate.isOpen()).isTrue();
    assertThat(gate.refusal(term, "ensure")).isInstanceOf(NotLeadingException.class);
    assertThat(gate.refusal(gate.term(), "ensure")).isNull();
    assertThat(LeaderGate.alwaysOpen().refusal(0, "ensure")).isNull();
  }

  @Test
  void closesWhenTheLeaseIsLost() {
    gate.renewed(now.get());
    gate.lead();
    gate.close();
    assertThat(gate.isOpen()).isFalse();
  }

  @Test
  void guardMakesTheCallOnlyWhileOpen() {
    AtomicInteger calls = new AtomicInteger();
    gate.renewed(now.get());
    gate.lead();
    Future<String> made =
        gate.guard("a write", () -> Future.succeededFuture("v" + calls.incrementAndGet()));
    assertThat(made.result()).isEqualTo("v1");

    gate.close();
    Future<String> fenced =
        gate.guard("a write", () -> Future.succeededFuture("v" + calls.incrementAndGet()));
    assertThat(fenced.failed()).isTrue();
    assertThat(fenced.cause())
        .isInstanceOf(NotLeadingException.class)
        .hasMessageContaining("a write");
    assertThat(calls).hasValue(1);
  }

  @Test
  void withoutLeaderElectionTheGateIsAlwaysOpen() {
    LeaderGate open = LeaderGate.alwaysOpen();
    assertThat(open.isOpen()).isTrue();
    open.close();
    assertThat(open.isOpen()).isTrue();
  }
}
