package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpTest {

  @Test
  void aUrlsHostLosesOnlyTheBracketsOfAnIpv6Literal() {
    assertThat(Ip.unbracketed("[::1]")).isEqualTo("::1");
    assertThat(Ip.unbracketed("[fd00::7]")).isEqualTo("fd00::7");
    assertThat(Ip.unbracketed("127.0.0.1")).isEqualTo("127.0.0.1");
    assertThat(Ip.unbracketed("pier.example")).isEqualTo("pier.example");
    assertThat(Ip.unbracketed("[::1")).isEqualTo("[::1");
  }

  @ParameterizedTest
  @CsvSource({
    "127.0.0.1, 127.0.0.1",
    "0.0.0.0, 0.0.0.0",
    "255.255.255.255, 255.255.255.255",
    "::, ::",
    "::1, ::1",
    "FD00:0:0:0:0:0:0:1, fd00::1",
    "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
    "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
    "::ffff:10.0.0.1, ::ffff:a00:1",
    "1:2:3:4:5:6:7::, 1:2:3:4:5:6:7:0"
  })
  void parsesAndFormatsCanonically(String text, String canonical) {
    Ip ip = Ip.parse(text);
    assertThat(ip).isNotNull();
    assertThat(ip.toString()).isEqualTo(canonical);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "1.2.3",
        "1.2.3.4.5",
        "1.2.3.256",
        "01.2.3.4",
        "1.2.3.4.",
        "a.b.c.d",
        "1::2::3",
        "1:2:3:4:5:6:7:8:9",
        "12345::",
        "fe80::1%eth0",
        "example.com",
        "1:2:3"
      })
  void rejectsNonLiterals(String text) {
    assertThat(Ip.parse(text)).isNull();
  }
}
