package dev.pier.dns.externaldns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.dns.RecordSet;
import org.junit.jupiter.api.Test;

class TxtRegistryTest {
  private final TxtRegistry registry = new TxtRegistry("pier-");

  @Test
  void theRegistryNameCarriesTheTypeInLowerCase() {
    assertThat(registry.registryName("Web.Example.com", "CNAME"))
        .isEqualTo("pier-cname-web.example.com.");
    assertThat(registry.guarded("pier-aaaa-web.example.com.").orElseThrow())
        .containsExactly("web.example.com.", "AAAA");
    assertThat(registry.guarded("pier-txt-web.example.com.")).isEmpty();
    assertThat(registry.guarded("a-web.example.com.")).isEmpty();
    assertThat(registry.guarded("pier-a-")).isEmpty();
  }

  @Test
  void theValueRoundTripsTheOwnerMark() {
    String mark = RecordSet.ownerMark("pier", "uid-1");
    String v = TxtRegistry.value(mark, "service/ns/web");
    assertThat(v)
        .isEqualTo(
            "\"heritage=pier,pier/owner=pier,pier/cluster=uid-1,pier/resource=service/ns/web\"");
    assertThat(TxtRegistry.ownerMark(v)).contains(mark);
    assertThat(TxtRegistry.ownerMark(TxtRegistry.value(mark, null))).contains(mark);
    // The old scheme: the owner id alone.
    assertThat(TxtRegistry.ownerMark(TxtRegistry.value("pier", null))).contains("pier");
    assertThat(TxtRegistry.ownerMark("heritage=pier,pier/owner=a,b")).contains("a,b");
  }

  @Test
  void recordsOfExternalDnsOrAnyoneElseCarryNoMark() {
    assertThat(TxtRegistry.ownerMark("\"heritage=external-dns,external-dns/owner=default\""))
        .isEmpty();
    assertThat(TxtRegistry.ownerMark("v=spf1 -all")).isEmpty();
    assertThat(TxtRegistry.ownerMark("\"heritage=pier\"")).isEmpty();
  }
}
