package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
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

  private static String label(char c, int length) {
    return String.valueOf(c).repeat(length);
  }

  @Test
  void aLabelIsOneTo63Bytes() {
    assertThat(DnsNames.nameProblem(label('a', 63) + ".example.com.")).isEmpty();
    assertThat(DnsNames.nameProblem(label('a', 64) + ".example.com."))
        .hasValueSatisfying(
            p -> assertThat(p).contains(label('a', 64)).contains("64 bytes").contains("63"));
    assertThat(DnsNames.nameProblem("a..example.com."))
        .hasValueSatisfying(p -> assertThat(p).contains("empty label"));
    // Bytes, not characters: a label of 32 two-byte characters is 64 bytes.
    assertThat(DnsNames.nameProblem(label('\u00e9', 32) + ".example.com.")).isPresent();
  }

  @Test
  void aNameIsAtMost253BytesWithoutItsTrailingDot() {
    // 4 labels of 62 bytes and their dots: 251 bytes, plus "a." gives 253.
    String four = String.join(".", label('a', 62), label('b', 62), label('c', 62), label('d', 62));
    assertThat(DnsNames.nameProblem(four + ".e")).isEmpty();
    assertThat(DnsNames.nameProblem(four + ".e.")).isEmpty();
    assertThat(DnsNames.nameProblem(four + ".ef."))
        .hasValueSatisfying(p -> assertThat(p).contains("254 bytes").contains("253"));
    assertThat(DnsNames.isValidName(four + ".e.")).isTrue();
    assertThat(DnsNames.isValidName(four + ".ef.")).isFalse();
  }

  @Test
  void longServiceNamespaceAndTopologyLabelsCanMakeANameTooLong() {
    String svc = label('s', 63);
    String ns = label('n', 63);
    String region = label('r', 63);
    String zone = label('z', 63);
    // 63 + 63 + "ufp" + "svc" + "example.com" and their dots: 147 bytes, fine.
    assertThat(DnsNames.nameProblem(names.global(ns, svc))).isEmpty();
    assertThat(DnsNames.nameProblem(names.region(ns, svc, region))).isEmpty();
    // Adding a 63-byte zone and a 63-byte region: 275 bytes.
    assertThat(DnsNames.nameProblem(names.zone(ns, svc, zone, region)))
        .hasValueSatisfying(p -> assertThat(p).contains("275 bytes").contains("253"));
    // A federation name longer than a label breaks every name.
    DnsNames longFederation = new DnsNames(label('f', 64), "example.com");
    assertThat(DnsNames.nameProblem(longFederation.global("test", "nginx")))
        .isEqualTo(
            Optional.of(
                "label '"
                    + label('f', 64)
                    + "' is 64 bytes, over the 63-byte limit of a DNS label"));
  }
}
