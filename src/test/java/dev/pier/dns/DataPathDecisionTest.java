package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DataPathDecisionTest {
  private static final ProbeState DOWN = new ProbeState(false, 0, 3);
  private static final ProbeState UP = new ProbeState(true, 5, 0);

  private static ServingCluster cluster(String name, String region, boolean healthy, String... v4) {
    return new ServingCluster(
        new ClusterLocation(name, region, List.of(region + "-a")), List.of(v4), List.of(), healthy);
  }

  @Test
  void anAddressLeavesAfterTheFailureThresholdAndReturnsAfterTheSuccessThreshold() {
    ProbeState s = ProbeState.NEW;
    s = s.next(false, 3, 2);
    s = s.next(false, 3, 2);
    assertThat(s.answering()).as("two failures of three").isTrue();
    s = s.next(false, 3, 2);
    assertThat(s.answering()).isFalse();
    assertThat(s.failures()).isEqualTo(3);
    s = s.next(true, 3, 2);
    assertThat(s.answering()).as("one pass of two").isFalse();
    s = s.next(false, 3, 2);
    s = s.next(true, 3, 2);
    assertThat(s.answering()).as("the passes must be in a row").isFalse();
    s = s.next(true, 3, 2);
    assertThat(s.answering()).isTrue();
    assertThat(s.next(false, 3, 2).answering()).as("one failure after returning").isTrue();
    assertThat(ProbeState.NEW.next(false, 1, 1).answering()).isFalse();
  }

  @Test
  void failingAddressesLeaveWhileEnoughAnswer() {
    DataPathDecision d =
        DataPathDecision.decide(
            Set.of("192.0.2.1", "192.0.2.2", "192.0.2.3"),
            Map.of("192.0.2.1", DOWN, "192.0.2.2", UP),
            50);
    assertThat(d.leaving()).containsExactly("192.0.2.1");
    assertThat(d.held()).isFalse();
    assertThat(d.answering()).isEqualTo(2);
    assertThat(d.probed()).isEqualTo(3);
  }

  @Test
  void halfOfTheAddressesAnsweringIsEnoughAsWithMembers() {
    DataPathDecision d =
        DataPathDecision.decide(Set.of("192.0.2.1", "192.0.2.2"), Map.of("192.0.2.1", DOWN), 50);
    assertThat(d.leaving()).containsExactly("192.0.2.1");
  }

  @Test
  void belowThePanicThresholdEveryAddressStays() {
    Map<String, ProbeState> states = new HashMap<>();
    states.put("192.0.2.1", DOWN);
    states.put("192.0.2.2", DOWN);
    states.put("192.0.2.3", UP);
    DataPathDecision d =
        DataPathDecision.decide(Set.of("192.0.2.1", "192.0.2.2", "192.0.2.3"), states, 50);
    assertThat(d.leaving()).isEmpty();
    assertThat(d.held()).isTrue();
    assertThat(d.failing()).containsExactlyInAnyOrder("192.0.2.1", "192.0.2.2");
    assertThat(d.answering()).isEqualTo(1);

    DataPathDecision all = DataPathDecision.decide(Set.of("192.0.2.1", "192.0.2.2"), states, 50);
    assertThat(all.held()).as("every probe failing").isTrue();
    assertThat(all.leaving()).isEmpty();
  }

  @Test
  void panicThresholdZeroNeverHolds() {
    DataPathDecision d =
        DataPathDecision.decide(
            Set.of("192.0.2.1", "192.0.2.2"), Map.of("192.0.2.1", DOWN, "192.0.2.2", DOWN), 0);
    assertThat(d.leaving()).containsExactlyInAnyOrder("192.0.2.1", "192.0.2.2");
    assertThat(d.held()).isFalse();
  }

  @Test
  void nothingProbedNothingLeaves() {
    DataPathDecision d = DataPathDecision.decide(Set.of(), Map.of("192.0.2.1", DOWN), 50);
    assertThat(d.leaving()).isEmpty();
    assertThat(d.held()).isFalse();
    assertThat(DataPathDecision.NONE.apply(List.of())).isEmpty();
  }

  @Test
  void publishedAddressesAreThoseOfHealthyClusters() {
    assertThat(
            DataPathDecision.published(
                List.of(
                    cluster("east", "eu", true, "192.0.2.1"),
                    cluster("west", "us", false, "192.0.2.2"),
                    new ServingCluster(
                        new ClusterLocation("south", "ap", List.of()),
                        List.of(),
                        List.of("2001:db8::1"),
                        true))))
        .containsExactlyInAnyOrder("192.0.2.1", "2001:db8::1");
  }

  @Test
  void aClusterWhoseAddressesAllLeftIsUnhealthyAndKeepsItsAddressesForItsNames() {
    ServingCluster east = cluster("east", "eu", true, "192.0.2.1", "192.0.2.3");
    ServingCluster west = cluster("west", "us", true, "192.0.2.2");
    DataPathDecision d =
        DataPathDecision.decide(
            Set.of("192.0.2.1", "192.0.2.2", "192.0.2.3"),
            Map.of("192.0.2.2", DOWN, "192.0.2.3", DOWN),
            0);
    List<ServingCluster> out = d.apply(List.of(east, west));
    assertThat(out.get(0).ipv4()).containsExactly("192.0.2.1");
    assertThat(out.get(0).healthy()).isTrue();
    assertThat(out.get(1).healthy()).isFalse();
    assertThat(out.get(1).ipv4()).containsExactly("192.0.2.2");
  }

  @Test
  void theNamesFollowTheDecision() {
    DnsNames names = new DnsNames("pier", "example.com");
    ServingCluster east = cluster("east", "eu", true, "192.0.2.1");
    ServingCluster west = cluster("west", "us", true, "192.0.2.2");
    DataPathDecision d =
        DataPathDecision.decide(Set.of("192.0.2.1", "192.0.2.2"), Map.of("192.0.2.2", DOWN), 50);
    Map<String, List<RecordSet>> records =
        DesiredRecords.compute(names, "shop", "web", d.apply(List.of(east, west)), 30, "o");
    assertThat(records.get(names.global("shop", "web")))
        .singleElement()
        .satisfies(r -> assertThat(r.records()).containsExactly("192.0.2.1"));
    assertThat(records.get(names.region("shop", "web", "us")))
        .singleElement()
        .satisfies(r -> assertThat(r.type()).isEqualTo(RecordSet.CNAME));
  }
}
