package dev.pier.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.ServiceRef;
import org.junit.jupiter.api.Test;

class EventCorrelatorTest {
  private static final ObjectRef SVC = ObjectRef.of(new ServiceRef("c", "ns", "web", "uid-1"));

  @Test
  void repeatsWithinTheWindowUpdateTheCountOfTheFirstEvent() {
    EventCorrelator c = new EventCorrelator(100, 1000, 25, 300_000);
    EventCorrelator.Decision first = c.decide(SVC, "Normal", "EnsuringLoadBalancer", "m", "e1", 0);
    EventCorrelator.Decision second =
        c.decide(SVC, "Normal", "EnsuringLoadBalancer", "m", "e2", 500);
    assertThat(first.action()).isEqualTo(EventCorrelator.Action.CREATE);
    assertThat(second.action()).isEqualTo(EventCorrelator.Action.UPDATE_COUNT);
    assertThat(second.eventName()).isEqualTo("e1");
    assertThat(second.count()).isEqualTo(2);
  }

  @Test
  void anotherMessageOrAnExpiredWindowCreatesANewEvent() {
    EventCorrelator c = new EventCorrelator(100, 1000, 25, 300_000);
    c.decide(SVC, "Warning", "SyncLoadBalancerFailed", "a", "e1", 0);
    assertThat(c.decide(SVC, "Warning", "SyncLoadBalancerFailed", "b", "e2", 10).action())
        .isEqualTo(EventCorrelator.Action.CREATE);
    assertThat(c.decide(SVC, "Warning", "SyncLoadBalancerFailed", "a", "e3", 5000).eventName())
        .isEqualTo("e3");
  }

  @Test
  void aStormOnOneObjectIsCutAfterTheBurstAndRefills() {
    EventCorrelator c = new EventCorrelator(100, 1000, 3, 1000);
    for (int i = 0; i < 3; i++) {
      assertThat(c.decide(SVC, "Normal", "R", "m" + i, "e" + i, 0).action())
          .isNotEqualTo(EventCorrelator.Action.DROP);
    }
    assertThat(c.decide(SVC, "Normal", "R", "x", "e9", 0).action())
        .isEqualTo(EventCorrelator.Action.DROP);
    ObjectRef other = ObjectRef.of(new ServiceRef("c", "ns", "other", "uid-2"));
    assertThat(c.decide(other, "Normal", "R", "x", "o1", 0).action())
        .isEqualTo(EventCorrelator.Action.CREATE);
    assertThat(c.decide(SVC, "Normal", "R", "y", "e10", 1000).action())
        .isEqualTo(EventCorrelator.Action.CREATE);
  }
}
