package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CopyGaugesTest {
  @Test
  void oneGaugePerMemberWhileItIsOneReadingWhatThisReplicaSees() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Map<String, Double> seen = new HashMap<>(Map.of("east", 3.0));
    CopyGauges gauges = new CopyGauges(registry, m -> seen.getOrDefault(m, 0.0));

    gauges.track("east");
    gauges.track("east");
    gauges.track("west");
    assertThat(registry.find("pier.federation.copies").gauges()).hasSize(2);
    assertThat(registry.get("pier.federation.copies").tag("cluster", "east").gauge().value())
        .isEqualTo(3.0);
    seen.put("east", 5.0);
    assertThat(registry.get("pier.federation.copies").tag("cluster", "east").gauge().value())
        .isEqualTo(5.0);

    gauges.untrack("east");
    assertThat(registry.find("pier.federation.copies").tag("cluster", "east").gauge()).isNull();
    assertThat(registry.find("pier.federation.copies").tag("cluster", "west").gauge()).isNotNull();
  }
}
