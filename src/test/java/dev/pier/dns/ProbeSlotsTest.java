package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProbeSlotsTest {
  @Test
  void thePeriodIsCutIntoSlotsOfAboutATick() {
    assertThat(new ProbeSlots<String>(Duration.ofSeconds(10)).slots()).isEqualTo(100);
    assertThat(new ProbeSlots<String>(Duration.ofSeconds(10)).tickMillis(Duration.ofSeconds(10)))
        .isEqualTo(100);
    assertThat(new ProbeSlots<String>(Duration.ofSeconds(1)).slots()).isEqualTo(10);
    assertThat(new ProbeSlots<String>(Duration.ofMinutes(5)).slots())
        .isEqualTo(ProbeSlots.MAX_SLOTS);
    assertThat(new ProbeSlots<String>(Duration.ofMinutes(5)).tickMillis(Duration.ofMinutes(5)))
        .isEqualTo(3000);
    ProbeSlots<String> fast = new ProbeSlots<>(Duration.ofMillis(50));
    assertThat(fast.slots()).isEqualTo(1);
    assertThat(fast.tickMillis(Duration.ofMillis(50))).isEqualTo(50);
  }

  @Test
  void itemsFillTheLeastLoadedSlotsEvenlyAndEachIsDueOncePerRound() {
    ProbeSlots<String> slots = new ProbeSlots<>(Duration.ofSeconds(1));
    for (int i = 0; i < 25; i++) {
      slots.add("a" + i);
    }
    assertThat(slots.add("a3")).as("an item keeps its slot").isEqualTo(3);
    Set<String> round = new HashSet<>();
    for (long tick = 20; tick < 30; tick++) {
      assertThat(slots.due(tick)).hasSizeBetween(2, 3);
      round.addAll(slots.due(tick));
    }
    assertThat(round).hasSize(25);
  }

  @Test
  void aRemovedItemIsNoLongerDueAndItsSlotIsFilledFirst() {
    ProbeSlots<String> slots = new ProbeSlots<>(Duration.ofSeconds(1));
    for (int i = 0; i < 20; i++) {
      slots.add("a" + i);
    }
    Set<String> slotZero = Set.copyOf(slots.due(0));
    slotZero.forEach(slots::remove);
    slots.remove("never added");
    assertThat(slots.due(0)).isEmpty();
    assertThat(slots.load(0)).isZero();
    assertThat(slots.add("new")).isZero();
    assertThat(slots.due(10)).containsExactly("new");
  }
}
