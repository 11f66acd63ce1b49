package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DnsNamesTest {
  private final DnsNames names = new DnsNames("ufp", "Example.com");

  @Test
  void federationV1Names() {
    assertThat(names.global("test", "nginx")).isEqualTo("nginx.test.ufp.svc.example.com.");
    assertThat(names.region("test", "nginx", "fooregion"))
        .isEqualTo("nginx.test.ufp.svc.fooregion.example.com.");
    assertThat(names.zone("test", "nginx", "foozone", "fooregion"))
        .isEqualTo("nginx.test.ufp.svc.foozone.fooregion.example.com.");
  }

  @Test
  void canonicalAndWithin() {
    assertThat(DnsNames.canonical("A.b.")).isEqualTo("a.b.");
    assertThat(DnsNames.canonical("a.b")).isEqualTo("a.b.");
    assertThat(DnsNames.within("x.example.com", "example.com.")).isTrue();
    assertThat(DnsNames.within("example.com", "example.com.")).isTrue();
    assertThat(DnsNames.within("xexample.com", "example.com.")).isFalse();
    assertThat(DnsNames.isDomain("a.b-c.d")).isTrue();
    assertThat(DnsNames.isDomain("a..b")).isFalse();
    assertThat(DnsNames.isLabel("us-east-1a")).isTrue();
    assertThat(DnsNames.isLabel("zone:1")).isFalse();
  }

  @Test
  void namesOfAServiceAreRecognizedAtEveryLevel() {
    assertThat(names.isNameOf("nginx.test.ufp.svc.example.com.", "test", "nginx")).isTrue();
    assertThat(names.isNameOf("nginx.test.ufp.svc.z.r.example.com.", "test", "nginx")).isTrue();
    assertThat(names.isNameOf("nginx2.test.ufp.svc.example.com.", "test", "nginx")).isFalse();
    assertThat(names.isNameOf("nginx.test.ufp.svc.example.org.", "test", "nginx")).isFalse();
  }
}
