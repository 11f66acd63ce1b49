package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which addresses a member's provider may reach. */
class EgressPolicyTest {

  private static String refusal(EgressPolicy policy, String literal) throws Exception {
    // A literal: InetAddress parses it without a lookup.
    return policy.refusal(InetAddress.getByName(literal));
  }

  @ParameterizedTest
  @CsvSource({
    "127.0.0.1, 127.0.0.1 is a loopback address",
    "127.255.0.9, 127.255.0.9 is a loopback address",
    "::1, ::1 is a loopback address",
    "169.254.169.254, 169.254.169.254 is a link-local address",
    "fe80::1, fe80::1 is a link-local address",
    "0.0.0.0, 0.0.0.0 is an unspecified address",
    "0.1.2.3, 0.1.2.3 is an unspecified address",
    "::, :: is an unspecified address",
    "224.0.0.251, 224.0.0.251 is a multicast address",
    "ff02::1, ff02::1 is a multicast address",
    "255.255.255.255, 255.255.255.255 is a broadcast address",
    "10.0.0.1, 10.0.0.1 is a private address",
    "172.16.0.1, 172.16.0.1 is a private address",
    "172.31.255.254, 172.31.255.254 is a private address",
    "192.168.1.1, 192.168.1.1 is a private address",
    "100.64.0.1, 100.64.0.1 is a private (shared) address",
    "fd00::1, fd00::1 is a private address",
    "64:ff9b::7f00:1, '64:ff9b::7f00:1 embeds 127.0.0.1, a loopback address'",
    "64:ff9b::a9fe:a9fe, '64:ff9b::a9fe:a9fe embeds 169.254.169.254, a link-local address'",
    // Java maps ::ffff:a.b.c.d to the IPv4 address itself.
    "::ffff:10.1.2.3, 10.1.2.3 is a private address",
  })
  void eachClassOfAddressIsRefusedByDefaultAndNamed(String address, String reason)
      throws Exception {
    assertThat(refusal(EgressPolicy.DEFAULT, address)).isEqualTo(reason);
  }

  @ParameterizedTest
  @CsvSource({
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "203.0.113.7",
    "2001:db8::1",
    "64:ff9b::101:101"
  })
  void publicAddressesAreReachable(String address) throws Exception {
    assertThat(refusal(EgressPolicy.DEFAULT, address)).isNull();
  }

  @Test
  void theOperatorsAllowListOverridesEveryRefusalLoopbackIncluded() throws Exception {
    EgressPolicy policy =
        EgressPolicy.of(List.of("127.0.0.0/8", "::1/128", "10.20.0.0/16"), List.of("10.0.0.0/8"));
    assertThat(refusal(policy, "127.0.0.1")).isNull();
    assertThat(refusal(policy, "::1")).isNull();
    assertThat(refusal(policy, "10.20.3.4")).isNull();
    assertThat(refusal(policy, "10.21.3.4"))
        .isEqualTo("10.21.3.4 is in a denied range (10.0.0.0/8)");
    assertThat(refusal(policy, "169.254.169.254"))
        .isEqualTo("169.254.169.254 is a link-local address");
    // NAT64 of an allowed address is allowed too.
    assertThat(refusal(policy, "64:ff9b::7f00:1")).isNull();
  }

  @Test
  void denyAddsPublicRangesSuchAsTheHostsServiceAndPodRanges() throws Exception {
    EgressPolicy policy = EgressPolicy.of(List.of(), List.of("203.0.113.0/24", "2001:db8:5::/48"));
    assertThat(refusal(policy, "203.0.113.9"))
        .isEqualTo("203.0.113.9 is in a denied range (203.0.113.0/24)");
    assertThat(refusal(policy, "2001:db8:5::10"))
        .isEqualTo("2001:db8:5::10 is in a denied range (2001:db8:5::/48)");
    assertThat(refusal(policy, "64:ff9b::cb00:7109"))
        .isEqualTo("64:ff9b::cb00:7109 embeds 203.0.113.9, in a denied range (203.0.113.0/24)");
    assertThat(refusal(policy, "203.0.114.9")).isNull();
  }

  @Test
  void aValueThatIsNotACidrIsRefusedByValue() {
    assertThat(EgressPolicy.valid(List.of("10.0.0.0/8", "fd00::/8"))).isTrue();
    for (String bad : List.of("10.0.0.0", "10.0.0.0/33", "::/129", "example.com/8", "10.0.0.0/x")) {
      assertThat(EgressPolicy.valid(List.of(bad))).as(bad).isFalse();
    }
    assertThatThrownBy(() -> EgressPolicy.of(List.of("10.0.0.0/33"), List.of()))
        .hasMessageContaining("'10.0.0.0/33' is not a CIDR");
  }
}
