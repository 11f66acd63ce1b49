package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.ProviderException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AddressPoolTest {

  @Test
  void cidrSkipsNetworkAndBroadcastAndAllocatesLowestFirst() {
    AddressPool pool = new AddressPool(List.of("10.0.0.0/30"));
    assertThat(pool.allocate("c/ns/a", "u1", null)).isEqualTo("10.0.0.1");
    assertThat(pool.allocate("c/ns/b", "u2", null)).isEqualTo("10.0.0.2");
    assertThat(pool.contains("10.0.0.0")).isFalse();
    assertThat(pool.contains("10.0.0.3")).isFalse();
    assertThatThrownBy(() -> pool.allocate("c/ns/c", "u3", null))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("address pools [10.0.0.0/30] are exhausted");
  }

  @Test
  void slash31AndSlash32UseEveryAddress() {
    AddressPool pool = new AddressPool(List.of("10.0.0.0/31", "10.0.1.7/32"));
    assertThat(pool.allocate("c/ns/a", "u", null)).isEqualTo("10.0.0.0");
    assertThat(pool.allocate("c/ns/b", "u", null)).isEqualTo("10.0.0.1");
    assertThat(pool.allocate("c/ns/c", "u", null)).isEqualTo("10.0.1.7");
  }

  @Test
  void rangeIsInclusiveAndPoolsAreUsedInOrder() {
    AddressPool pool = new AddressPool(List.of("10.0.0.10-10.0.0.11", "192.168.5.0/24"));
    assertThat(pool.allocate("c/ns/a", "u", null)).isEqualTo("10.0.0.10");
    assertThat(pool.allocate("c/ns/b", "u", null)).isEqualTo("10.0.0.11");
    assertThat(pool.allocate("c/ns/c", "u", null)).isEqualTo("192.168.5.1");
    assertThat(pool.contains("10.0.0.9")).isFalse();
    assertThat(pool.contains("10.0.0.12")).isFalse();
  }

  @Test
  void allocationIsStablePerService() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    String first = pool.allocate("c/ns/a", "u", null);
    pool.allocate("c/ns/b", "u", null);
    assertThat(pool.allocate("c/ns/a", "u", null)).isEqualTo(first);
    assertThat(pool.lookup("c/ns/a")).contains(first);
    assertThat(pool.holder(first)).contains("c/ns/a");
    assertThat(pool.allocatedCount()).isEqualTo(2);
  }

  @Test
  void releasedAddressIsReusedAsLowestFree() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    pool.allocate("c/ns/a", "u", null);
    pool.allocate("c/ns/b", "u", null);
    pool.allocate("c/ns/c", "u", null);
    assertThat(pool.release("c/ns/b")).contains("127.240.0.2");
    assertThat(pool.release("c/ns/b")).isEmpty();
    assertThat(pool.lookup("c/ns/b")).isEmpty();
    assertThat(pool.allocate("c/ns/d", "u", null)).isEqualTo("127.240.0.2");
    assertThat(pool.allocate("c/ns/e", "u", null)).isEqualTo("127.240.0.4");
  }

  @Test
  void requestedAddressInsideThePoolIsHonouredAndMovesTheService() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    assertThat(pool.allocate("c/ns/a", "u", null)).isEqualTo("127.240.0.1");
    assertThat(pool.allocate("c/ns/a", "u", "127.240.3.4")).isEqualTo("127.240.3.4");
    assertThat(pool.lookup("c/ns/a")).contains("127.240.3.4");
    // The old address is free again.
    assertThat(pool.allocate("c/ns/b", "u", null)).isEqualTo("127.240.0.1");
  }

  @Test
  void requestedAddressOutsideThePoolsIsInvalidInput() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    assertThatThrownBy(() -> pool.allocate("c/ns/a", "u", "10.1.2.3"))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.loadBalancerIP");
              assertThat(e.value()).isEqualTo("10.1.2.3");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "spec.loadBalancerIP 10.1.2.3 is outside the address pools [127.240.0.0/16]");
            });
    assertThatThrownBy(() -> pool.allocate("c/ns/a", "u", "not-an-ip"))
        .isInstanceOf(ProviderException.InvalidInput.class)
        .hasMessageContaining("not an IP address");
    assertThat(pool.lookup("c/ns/a")).isEmpty();
  }

  @Test
  void requestedAddressTakenByAnotherServiceIsRetryNamingTheHolder() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    pool.allocate("c/ns/holder", "u1", "127.240.0.9");
    String mine = pool.allocate("c/ns/b", "u2", null);
    assertThatThrownBy(() -> pool.allocate("c/ns/b", "u2", "127.240.0.9"))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageContaining("127.240.0.9")
        .hasMessageContaining("c/ns/holder");
    // The failed move leaves the Service where it was.
    assertThat(pool.lookup("c/ns/b")).contains(mine);
  }

  @Test
  void preferredAddressIsUsedOnlyWhenFree() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    assertThat(pool.allocate("c/ns/a", "u", null, "127.240.0.50")).isEqualTo("127.240.0.50");
    assertThat(pool.allocate("c/ns/b", "u", null, "127.240.0.50")).isEqualTo("127.240.0.1");
    assertThat(pool.allocate("c/ns/c", "u", null, "10.9.9.9")).isEqualTo("127.240.0.2");
    // An existing allocation wins over the preference.
    assertThat(pool.allocate("c/ns/c", "u", null, "127.240.0.77")).isEqualTo("127.240.0.2");
  }

  @Test
  void reserveRestoresAndDetectsConflicts() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    pool.reserve("c/ns/a", "u1", "127.240.0.1");
    pool.reserve("c/ns/a", "u1", "127.240.0.1");
    assertThat(pool.lookup("c/ns/a")).contains("127.240.0.1");
    assertThat(pool.uid("c/ns/a")).contains("u1");
    assertThat(pool.allocate("c/ns/b", "u2", null)).isEqualTo("127.240.0.2");
    assertThatThrownBy(() -> pool.reserve("c/ns/c", "u3", "127.240.0.1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("c/ns/a");
    assertThatThrownBy(() -> pool.reserve("c/ns/c", "u3", "10.0.0.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outside");
  }

  @Test
  void exhaustedPoolRecoversAfterRelease() {
    AddressPool pool = new AddressPool(List.of("10.0.0.10-10.0.0.12"));
    for (int i = 0; i < 3; i++) {
      pool.allocate("c/ns/s" + i, "u", null);
    }
    assertThatThrownBy(() -> pool.allocate("c/ns/x", "u", null))
        .isInstanceOf(ProviderException.Retry.class)
        .hasMessageStartingWith("address pools [10.0.0.10-10.0.0.12] are exhausted");
    pool.release("c/ns/s1");
    assertThat(pool.allocate("c/ns/x", "u", null)).isEqualTo("10.0.0.11");
  }

  @Test
  void tenThousandServicesFitASlash16WithDistinctAddresses() {
    AddressPool pool = new AddressPool(List.of("127.240.0.0/16"));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      seen.add(pool.allocate("c/ns/svc-" + i, "uid-" + i, null));
    }
    assertThat(seen).hasSize(10_000);
    assertThat(pool.lookup("c/ns/svc-9999")).contains("127.240.39.16");
  }

  @Test
  void ipv6CidrAndRange() {
    AddressPool pool = new AddressPool(List.of("fd00:1::/120", "fd00:2::10-fd00:2::11"));
    assertThat(pool.allocate("c/ns/a", "u", null)).isEqualTo("fd00:1::1");
    assertThat(pool.allocate("c/ns/b", "u", "FD00:0001:0000::00ff")).isEqualTo("fd00:1::ff");
    assertThat(pool.contains("fd00:1::100")).isFalse();
    assertThat(pool.contains("fd00:2::11")).isTrue();
    assertThat(pool.contains("10.0.0.1")).isFalse();
  }

  @Test
  void hugeIpv6PoolStaysSparse() {
    AddressPool pool = new AddressPool(List.of("fd00::/64"));
    assertThat(pool.allocate("c/ns/a", "u", null)).isEqualTo("fd00::1");
    assertThat(pool.allocate("c/ns/b", "u", "fd00::ffff:ffff:ffff:fff0"))
        .isEqualTo("fd00::ffff:ffff:ffff:fff0");
    assertThat(pool.allocate("c/ns/c", "u", null)).isEqualTo("fd00::2");
    pool.release("c/ns/a");
    assertThat(pool.allocate("c/ns/d", "u", null)).isEqualTo("fd00::1");
  }

  @Test
  void badPoolStringsAreRejectedNamingTheValue() {
    assertBad(List.of("127.240.0.0/33"), "127.240.0.0/33");
    assertBad(List.of("127.240.0.5/16"), "did you mean 127.240.0.0/16");
    assertBad(List.of("10.0.0.20-10.0.0.10"), "10.0.0.20-10.0.0.10");
    assertBad(List.of("10.0.0.1-fd00::1"), "10.0.0.1-fd00::1");
    assertBad(List.of("300.0.0.0/8"), "300.0.0.0/8");
    assertBad(List.of("10.0.0.1"), "10.0.0.1");
    assertBad(List.of("lb-pool"), "lb-pool");
    assertBad(List.of("10.0.0.0/x"), "10.0.0.0/x");
    assertBad(List.of("10.0.0.0/24", "10.0.0.10-10.0.0.20"), "overlaps");
    assertBad(List.of("fd00::/63"), "fd00::/63");
    assertBad(List.of(" "), "must not be empty");
    assertBad(List.of(), "at least one");
  }

  private static final PoolSpec TEAM_A =
      new PoolSpec("team-a", List.of("10.0.0.1-10.0.0.2"), List.of("team-a", "team-a-dev"));
  private static final PoolSpec TEAM_B =
      new PoolSpec("team-b", List.of("10.0.1.1-10.0.1.2"), List.of("team-b"));
  private static final PoolSpec SHARED = PoolSpec.of("10.0.2.1-10.0.2.2");

  @Test
  void aNamespaceGetsAddressesOnlyFromPoolsItMayUse() {
    AddressPool pool = AddressPool.of(List.of(TEAM_A, TEAM_B, SHARED));
    assertThat(pool.allocate("c/team-b/x", "team-b", "u", null, null)).isEqualTo("10.0.1.1");
    assertThat(pool.allocate("c/team-a-dev/x", "team-a-dev", "u", null, null))
        .isEqualTo("10.0.0.1");
    assertThat(pool.allocate("c/other/x", "other", "u", null, null)).isEqualTo("10.0.2.1");
    // Without a namespace only the open pool is used.
    assertThat(pool.allocate("c/ns/y", "u", null)).isEqualTo("10.0.2.2");
  }

  @Test
  void aNamespaceFallsBackToOpenPoolsAndThenIsExhausted() {
    AddressPool pool = AddressPool.of(List.of(TEAM_B, SHARED));
    pool.allocate("c/team-b/1", "team-b", "u", null, null);
    pool.allocate("c/team-b/2", "team-b", "u", null, null);
    assertThat(pool.allocate("c/team-b/3", "team-b", "u", null, null)).isEqualTo("10.0.2.1");
    pool.allocate("c/other/1", "other", "u", null, null);
    // Two addresses of team-b are free for nobody else: other is out of addresses.
    pool.release("c/team-b/1");
    assertThatThrownBy(() -> pool.allocate("c/other/2", "other", "u", null, null))
        .isInstanceOfSatisfying(
            ProviderException.Retry.class,
            e ->
                assertThat(e.getMessage())
                    .isEqualTo(
                        "address pools [10.0.2.1-10.0.2.2] that namespace other may use are"
                            + " exhausted (3 addresses allocated); waiting for an address to be"
                            + " released"));
    assertThat(pool.allocate("c/team-b/4", "team-b", "u", null, null)).isEqualTo("10.0.1.1");
  }

  @Test
  void requestingAnAddressOfAPoolTheNamespaceMayNotUseIsInvalidInput() {
    AddressPool pool = AddressPool.of(List.of(TEAM_A, TEAM_B, SHARED));
    assertThatThrownBy(() -> pool.allocate("c/team-b/x", "team-b", "u", "10.0.0.2", null))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.loadBalancerIP");
              assertThat(e.value()).isEqualTo("10.0.0.2");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "spec.loadBalancerIP 10.0.0.2 is in address pool team-a, which namespace"
                          + " team-b may not use; the pools it may use are [{name: team-b,"
                          + " addresses: [10.0.1.1-10.0.1.2], namespaces: [team-b]},"
                          + " 10.0.2.1-10.0.2.2]");
            });
    assertThat(pool.lookup("c/team-b/x")).isEmpty();
    assertThat(pool.allocate("c/team-a/x", "team-a", "u", "10.0.0.2", null)).isEqualTo("10.0.0.2");
    assertThat(pool.allocate("c/team-b/x", "team-b", "u", "10.0.2.2", null)).isEqualTo("10.0.2.2");
  }

  @Test
  void aNamespaceNoPoolAdmitsIsInvalidInput() {
    AddressPool pool = AddressPool.of(List.of(TEAM_A, TEAM_B));
    assertThatThrownBy(() -> pool.allocate("c/other/x", "other", "u", null, null))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("metadata.namespace");
              assertThat(e.getMessage())
                  .startsWith(
                      "no address pool may be used by namespace other; the address pools"
                          + " are [{name: team-a");
            });
  }

  @Test
  void aPreferredOrRestoredAddressMustBeInAPoolTheNamespaceMayUse() {
    AddressPool pool = AddressPool.of(List.of(TEAM_A, SHARED));
    // The status address is ignored, not an error: the Service gets one of its own pools.
    assertThat(pool.allocate("c/other/x", "other", "u", null, "10.0.0.1")).isEqualTo("10.0.2.1");
    assertThatThrownBy(() -> pool.reserve("c/other/y", "other", "u", "10.0.0.2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("10.0.0.2 is in address pool team-a, which namespace other may not use");
    pool.reserve("c/team-a/y", "team-a", "u", "10.0.0.2");
    assertThat(pool.lookup("c/team-a/y")).contains("10.0.0.2");
  }

  @Test
  void namedPoolsMayHoldSeveralAddressesAndMustNotOverlapOrShareNames() {
    AddressPool pool =
        AddressPool.of(
            List.of(new PoolSpec("two", List.of("10.0.0.1/32", "10.0.5.1/32"), List.of("a"))));
    assertThat(pool.allocate("c/a/1", "a", "u", null, null)).isEqualTo("10.0.0.1");
    assertThat(pool.allocate("c/a/2", "a", "u", null, null)).isEqualTo("10.0.5.1");
    assertThatThrownBy(
            () ->
                AddressPool.of(
                    List.of(
                        new PoolSpec("x", List.of("10.0.0.0/24"), List.of("a")),
                        new PoolSpec("x", List.of("10.0.1.0/24"), List.of("b")))))
        .hasMessage("two address pools are named x");
    assertThatThrownBy(
            () ->
                AddressPool.of(
                    List.of(
                        new PoolSpec("x", List.of("10.0.0.0/24"), List.of("a")),
                        PoolSpec.of("10.0.0.128/25"))))
        .hasMessageContaining("overlaps");
    assertThatThrownBy(() -> AddressPool.of(List.of(new PoolSpec("x", List.of(), List.of()))))
        .hasMessage("address pool x has no addresses");
  }

  private static void assertBad(List<String> pools, String expected) {
    assertThatThrownBy(() -> AddressPool.validate(pools))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(expected);
  }

  private static AddressPool.Request sharing(String key) {
    return new AddressPool.Request(null, null, "spec.loadBalancerIP", null, key);
  }

  @Test
  void sharersRestoredFromStatusKeepTheirOneAddress() {
    AddressPool pool = new AddressPool(List.of("10.0.0.0/29"));
    pool.reserve("c/ns/a", "ns", "ua", "10.0.0.3", "dns");
    pool.reserve("c/ns/b", "ns", "ub", "10.0.0.3", "dns");
    assertThatThrownBy(() -> pool.reserve("c/ns/c", "ns", "uc", "10.0.0.3", "other"))
        .isInstanceOf(IllegalStateException.class);

    assertThat(pool.lookup("c/ns/b")).contains("10.0.0.3");
    assertThat(pool.keys()).containsExactlyInAnyOrder("c/ns/a", "c/ns/b");
    assertThat(inUse(pool)).as("a shared address is one address in use").isEqualTo(1);
    pool.release("c/ns/a");
    assertThat(pool.holder("10.0.0.3")).contains("c/ns/b");
    assertThat(inUse(pool)).isEqualTo(1);
    pool.release("c/ns/b");
    assertThat(pool.holder("10.0.0.3")).isEmpty();
    assertThat(inUse(pool)).isZero();
  }

  @Test
  void aSharerThatChangesItsKeyLeavesTheSharedAddress() {
    AddressPool pool = new AddressPool(List.of("10.0.0.0/29"));
    assertThat(pool.allocateFor("c/ns/a", "ns", "ua", sharing("k"), null)).isEqualTo("10.0.0.1");
    assertThat(pool.allocateFor("c/ns/b", "ns", "ub", sharing("k"), null)).isEqualTo("10.0.0.1");

    assertThat(pool.allocateFor("c/ns/b", "ns", "ub", sharing("j"), null)).isEqualTo("10.0.0.2");
    // Alone on its address, a Service keeps it when its key changes.
    assertThat(pool.allocateFor("c/ns/a", "ns", "ua", sharing(null), null)).isEqualTo("10.0.0.1");
    assertThat(pool.allocateFor("c/ns/c", "ns", "uc", sharing("k"), null)).isEqualTo("10.0.0.3");
    assertThat(inUse(pool)).isEqualTo(3);
  }

  private static long inUse(AddressPool pool) {
    return pool.usage().stream().mapToLong(u -> u.inUse()).sum();
  }
}
