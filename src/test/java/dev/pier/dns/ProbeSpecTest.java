package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProbeSpecTest {
  @Test
  void noAnnotationProbesNothingAndSaysNothing() {
    ProbeSpec.Parsed p = ProbeSpec.parse(null);
    assertThat(p.spec()).isNull();
    assertThat(p.problem()).isNull();
  }

  @Test
  void tcpAndHttpWithTheirDefaults() {
    assertThat(ProbeSpec.parse(" tcp ").spec()).isEqualTo(ProbeSpec.TCP);
    assertThat(ProbeSpec.parse("http").spec())
        .isEqualTo(new ProbeSpec(ProbeSpec.Kind.HTTP, "/", 200));
    assertThat(ProbeSpec.parse("http:/healthz").spec())
        .isEqualTo(new ProbeSpec(ProbeSpec.Kind.HTTP, "/healthz", 200));
    assertThat(ProbeSpec.parse("http:/ready?full=1:204").spec())
        .isEqualTo(new ProbeSpec(ProbeSpec.Kind.HTTP, "/ready?full=1", 204));
    assertThat(ProbeSpec.parse("http:/healthz:200").spec()).hasToString("http:/healthz:200");
  }

  @Test
  void valuesThatAreNoProbeSayWhy() {
    assertThat(ProbeSpec.parse("udp").problem()).contains("not tcp, http");
    assertThat(ProbeSpec.parse("TCP").spec()).isNull();
    assertThat(ProbeSpec.parse("http:healthz").problem()).contains("must start with /");
    assertThat(ProbeSpec.parse("http:/a b").problem()).contains("URI characters");
    assertThat(ProbeSpec.parse("http:/healthz:99").problem()).contains("'99' is no HTTP status");
    assertThat(ProbeSpec.parse("http:/healthz:600").spec()).isNull();
    assertThat(ProbeSpec.parse("http:/x:200:1").problem()).contains("no HTTP status");
    assertThat(ProbeSpec.parse("http:/" + "a".repeat(ProbeSpec.MAX_PATH)).spec()).isNull();
    assertThat(ProbeSpec.parse("http:/#frag").spec()).isNull();
  }

  @Test
  void aBadValueIsAnInvalidDnsAnnotationNamingTheFieldAndValue() {
    AnswerDecision.Result r =
        AnswerDecision.decide(
            Map.of(ProbeSpec.ANNOTATION, "icmp"),
            new AnswerDecision.Limits(180, 5, 3600, 0, Map.of()),
            false);
    assertThat(r.warnings())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.problem()).isEqualTo(AnswerDecision.Problem.INVALID);
              assertThat(w.message()).startsWith("pier.dev/dns-probe: 'icmp' not tcp, http");
              assertThat(w.message()).endsWith("not probing");
            });
    assertThat(r.policy().strategy()).isEqualTo(DnsStrategy.ROUND_ROBIN);
    assertThat(
            AnswerDecision.decide(
                    Map.of(ProbeSpec.ANNOTATION, "http:/healthz:200"),
                    new AnswerDecision.Limits(180, 5, 3600, 0, Map.of()),
                    false)
                .warnings())
        .isEmpty();
  }
}
