package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.AddressPoolUsage;
import java.util.List;
import org.junit.jupiter.api.Test;

class AddressPoolUsageTest {
  @Test
  void countsEachPoolsAddressesAndThoseServicesHoldOverAllItsRanges() {
    AddressPool pool =
        AddressPool.of(
            List.of(
                new PoolSpec("team-a", List.of("10.0.0.10-10.0.0.11", "10.0.1.0/30"), List.of()),
                PoolSpec.of("10.0.2.0/29")));
    assertThat(pool.usage())
        .containsExactly(
            new AddressPoolUsage("team-a", 4, 0), new AddressPoolUsage("10.0.2.0/29", 6, 0));

    pool.allocate("c/ns/a", "u1", null);
    pool.allocate("c/ns/b", "u2", null);
    pool.allocate("c/ns/c", "u3", null);
    pool.allocate("c/ns/d", "u4", "10.0.2.3");
    // Moving a Service to another address keeps one address in use.
    pool.allocate("c/ns/d", "u4", "10.0.2.4");
    assertThat(pool.usage())
        .containsExactly(
            new AddressPoolUsage("team-a", 4, 3), new AddressPoolUsage("10.0.2.0/29", 6, 1));

    pool.release("c/ns/a");
    pool.release("c/ns/a");
    pool.release("c/ns/d");
    assertThat(pool.usage())
        .containsExactly(
            new AddressPoolUsage("team-a", 4, 2), new AddressPoolUsage("10.0.2.0/29", 6, 0));
  }
}
