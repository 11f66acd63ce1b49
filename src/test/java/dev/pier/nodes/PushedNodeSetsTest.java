package dev.pier.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.LbNode;
import dev.pier.model.ServiceKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class PushedNodeSetsTest {
  private static NodeSet set(String... names) {
    return NodeSet.of(
        java.util.Arrays.stream(names)
            .map(n -> new LbNode(n, "p-" + n, "10.0.0.1", null, java.util.Map.of()))
            .toList());
  }

  @Test
  void equalSetsAreStoredOnceAndDifferentOnesKept() {
    PushedNodeSets pushed = new PushedNodeSets();
    ServiceKey a = new ServiceKey("c", "ns", "a");
    ServiceKey b = new ServiceKey("c", "ns", "b");
    ServiceKey c = new ServiceKey("c", "ns", "c");
    pushed.record(a, set("n1", "n2"));
    pushed.record(b, set("n1", "n2"));
    pushed.record(c, set("n1"));
    assertThat(pushed.get(b)).isSameAs(pushed.get(a)).isEqualTo(set("n1", "n2"));
    assertThat(pushed.get(c)).isEqualTo(set("n1"));
    pushed.forget(a);
    assertThat(pushed.get(a)).isNull();
    assertThat(pushed.snapshot()).containsOnlyKeys(b, c);
    assertThat(List.of(pushed.get(b).size(), pushed.get(c).size())).containsExactly(2, 1);
  }
}
