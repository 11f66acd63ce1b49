package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.ProviderException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SourceRangesTest {

  @Test
  void emptyAdmitsEveryone() {
    SourceRanges all = SourceRanges.parse(List.of());
    assertThat(all.isEmpty()).isTrue();
    assertThat(all.admits("127.0.0.1")).isTrue();
    assertThat(all.admits("fd00::1")).isTrue();
    assertThat(all.admits("not an address")).isTrue();
  }

  @Test
  void ipv4AndIpv6RangesAdmitTheirAddressesOnly() {
    SourceRanges r = SourceRanges.parse(List.of("10.0.0.0/8", " 192.168.1.0/24 ", "fd00:1::/32"));
    assertThat(r.admits("10.1.2.3")).isTrue();
    assertThat(r.admits("192.168.1.255")).isTrue();
    assertThat(r.admits("192.168.2.1")).isFalse();
    assertThat(r.admits("127.0.0.1")).isFalse();
    assertThat(r.admits("fd00:1:ffff::1")).isTrue();
    assertThat(r.admits("fd00:2::1")).isFalse();
    // An IPv4 client seen through an IPv6 socket, and an IPv6 address with a zone.
    assertThat(r.admits("::ffff:10.0.0.1")).isTrue();
    assertThat(r.admits("0:0:0:0:0:ffff:7f00:1")).isFalse();
    assertThat(r.admits("fd00:1::5%eth0")).isTrue();
    // What is no address is never admitted by a non-empty list.
    assertThat(r.admits(null)).isFalse();
    assertThat(r.admits("example.com")).isFalse();
  }

  @Test
  void singleAddressesAndEverything() {
    assertThat(SourceRanges.parse(List.of("127.0.0.2/32")).admits("127.0.0.2")).isTrue();
    assertThat(SourceRanges.parse(List.of("127.0.0.2/32")).admits("127.0.0.1")).isFalse();
    assertThat(SourceRanges.parse(List.of("0.0.0.0/0")).admits("8.8.8.8")).isTrue();
    assertThat(SourceRanges.parse(List.of("0.0.0.0/0")).admits("::1")).isFalse();
    assertThat(SourceRanges.parse(List.of("::/0")).admits("::1")).isTrue();
  }

  @Test
  void hostBitsAreMaskedLikeKubernetesDoes() {
    SourceRanges r = SourceRanges.parse(List.of("10.1.2.3/8"));
    assertThat(r.admits("10.200.0.1")).isTrue();
    assertThat(r.admits("11.0.0.1")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "10.0.0.0",
        "10.0.0.0/33",
        "10.0.0.0/",
        "10.0.0.0/-1",
        "10.0.0.0/8/8",
        "10.0.0/8",
        "fd00::/129",
        "fd00::%eth0/64",
        "example.com/8",
        "",
        " "
      })
  void invalidRangesAreInvalidInputNamingTheField(String bad) {
    assertThatThrownBy(() -> SourceRanges.parse(List.of("127.0.0.0/8", bad)))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> {
              assertThat(e.field()).isEqualTo("spec.loadBalancerSourceRanges");
              assertThat(e.value()).isEqualTo(bad);
              assertThat(e.getMessage()).startsWith("spec.loadBalancerSourceRanges");
            });
  }
}
