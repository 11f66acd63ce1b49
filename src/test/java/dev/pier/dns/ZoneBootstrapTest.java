package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ZoneBootstrapTest {
  private static final List<DnsZone> ZONES =
      List.of(
          new DnsZone("example.com.", "example.com."),
          new DnsZone("example.com.=2Fview", "example.com."),
          new DnsZone("other.org.", "other.org."));

  @Test
  void byNameByIdAndByBoth() {
    assertThat(ZoneBootstrap.matching(ZONES, "other.org", "")).hasSize(1);
    assertThat(ZoneBootstrap.matching(ZONES, "Example.com.", "")).hasSize(2);
    assertThat(ZoneBootstrap.matching(ZONES, "example.com", "example.com.=2Fview"))
        .containsExactly(new DnsZone("example.com.=2Fview", "example.com."));
    assertThat(ZoneBootstrap.matching(ZONES, "", "other.org.")).hasSize(1);
    assertThat(ZoneBootstrap.matching(ZONES, "missing.net", "")).isEmpty();
  }
}
