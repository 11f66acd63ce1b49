package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.dns.AnswerDecision.Problem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AnswerDecisionTest {
  private static final AnswerDecision.Limits LIMITS =
      new AnswerDecision.Limits(180, 5, 3600, 0, Map.of("eu", List.of("10.1.0.0/16")));

  private static AnswerDecision.Result decide(Map<String, String> a) {
    return AnswerDecision.decide(a, LIMITS, true);
  }

  @Test
  void noAnnotationIsRoundRobinWithTheDefaultTtl() {
    AnswerDecision.Result r = decide(Map.of());
    assertThat(r.policy().strategy()).isEqualTo(DnsStrategy.ROUND_ROBIN);
    assertThat(r.policy().ttl()).isEqualTo(180);
    assertThat(r.warnings()).isEmpty();
  }

  @Test
  void failoverReadsItsOrder() {
    AnswerDecision.Result r =
        decide(Map.of(AnswerDecision.STRATEGY, "failover", AnswerDecision.FAILOVER, "eu, us"));
    assertThat(r.policy().strategy()).isEqualTo(DnsStrategy.failover(List.of("eu", "us")));
    assertThat(r.warnings()).isEmpty();
  }

  @Test
  void weightedReadsItsWeightsAndTheWeightedTtl() {
    AnswerDecision.Result r =
        decide(Map.of(AnswerDecision.STRATEGY, "weighted", AnswerDecision.WEIGHTS, "eu=3,us=1"));
    assertThat(r.policy().strategy().weights())
        .containsExactly(Map.entry("eu", 3), Map.entry("us", 1));
    assertThat(r.policy().weightedTtl()).isZero();
  }

  @Test
  void badValuesNameTheFieldAndValueAndFallBackToRoundRobin() {
    for (Map<String, String> bad :
        List.of(
            Map.of(AnswerDecision.STRATEGY, "geoip"),
            Map.of(AnswerDecision.STRATEGY, "failover"),
            Map.of(AnswerDecision.STRATEGY, "failover", AnswerDecision.FAILOVER, "eu,,us"),
            Map.of(AnswerDecision.STRATEGY, "failover", AnswerDecision.FAILOVER, "eu,eu"),
            Map.of(AnswerDecision.STRATEGY, "weighted", AnswerDecision.WEIGHTS, "eu=x"),
            Map.of(AnswerDecision.STRATEGY, "weighted", AnswerDecision.WEIGHTS, "eu=3,eu=1"),
            Map.of(AnswerDecision.STRATEGY, "weighted", AnswerDecision.WEIGHTS, "eu=0"),
            Map.of(AnswerDecision.STRATEGY, "weighted", AnswerDecision.WEIGHTS, "eu=1001"),
            Map.of(AnswerDecision.STRATEGY, "weighted"))) {
      AnswerDecision.Result r = decide(bad);
      assertThat(r.policy().strategy()).as(bad.toString()).isEqualTo(DnsStrategy.ROUND_ROBIN);
      assertThat(r.warnings()).as(bad.toString()).hasSize(1);
      AnswerDecision.Warning w = r.warnings().get(0);
      assertThat(w.problem()).isEqualTo(Problem.INVALID);
      String field =
          bad.keySet().stream()
              .filter(k -> !k.equals(AnswerDecision.STRATEGY))
              .findFirst()
              .orElse(AnswerDecision.STRATEGY);
      if (bad.get(AnswerDecision.STRATEGY).equals("geoip")) {
        field = AnswerDecision.STRATEGY;
      } else if (bad.size() == 1) {
        field =
            bad.get(AnswerDecision.STRATEGY).equals("failover")
                ? AnswerDecision.FAILOVER
                : AnswerDecision.WEIGHTS;
      }
      assertThat(w.message()).as(bad.toString()).startsWith(field + ": '");
      bad.values().stream()
          .filter(v -> !v.equals("failover") && !v.equals("weighted"))
          .forEach(v -> assertThat(w.message()).contains("'" + v + "'"));
    }
  }

  @Test
  void perQueryStrategiesOnABackendWithoutThemAreUnsupported() {
    for (String s : List.of("weighted", "views")) {
      AnswerDecision.Result r =
          AnswerDecision.decide(
              Map.of(AnswerDecision.STRATEGY, s, AnswerDecision.WEIGHTS, "eu=1"), LIMITS, false);
      assertThat(r.policy().strategy()).isEqualTo(DnsStrategy.ROUND_ROBIN);
      assertThat(r.warnings())
          .extracting(AnswerDecision.Warning::problem)
          .containsExactly(Problem.UNSUPPORTED);
      assertThat(AnswerDecision.wantsPerQuery(Map.of(AnswerDecision.STRATEGY, s))).isTrue();
    }
    // Failover's static equivalent is exact: it works everywhere.
    AnswerDecision.Result f =
        AnswerDecision.decide(
            Map.of(AnswerDecision.STRATEGY, "failover", AnswerDecision.FAILOVER, "us"),
            LIMITS,
            false);
    assertThat(f.policy().strategy().kind()).isEqualTo(DnsStrategy.Kind.FAILOVER);
    assertThat(AnswerDecision.wantsPerQuery(Map.of(AnswerDecision.STRATEGY, "failover"))).isFalse();
  }

  @Test
  void viewsWithoutConfiguredNetworksAreUnsupported() {
    AnswerDecision.Result r =
        AnswerDecision.decide(
            Map.of(AnswerDecision.STRATEGY, "views"),
            new AnswerDecision.Limits(180, 5, 3600, 0, Map.of()),
            true);
    assertThat(r.policy().strategy()).isEqualTo(DnsStrategy.ROUND_ROBIN);
    assertThat(r.warnings().get(0).message()).contains("dns.views");
  }

  @Test
  void ttlIsKeptWithinTheOperatorsBounds() {
    assertThat(decide(Map.of(AnswerDecision.TTL, "30")).policy().ttl()).isEqualTo(30);
    AnswerDecision.Result low = decide(Map.of(AnswerDecision.TTL, "1"));
    assertThat(low.policy().ttl()).isEqualTo(5);
    assertThat(low.warnings().get(0).message()).startsWith("pier.dev/dns-ttl: '1'");
    assertThat(decide(Map.of(AnswerDecision.TTL, "99999")).policy().ttl()).isEqualTo(3600);
    AnswerDecision.Result nan = decide(Map.of(AnswerDecision.TTL, "soon"));
    assertThat(nan.policy().ttl()).isEqualTo(180);
    assertThat(nan.warnings()).hasSize(1);
    // A bad TTL does not touch the strategy, nor a bad strategy the TTL.
    AnswerDecision.Result both =
        decide(Map.of(AnswerDecision.TTL, "60", AnswerDecision.STRATEGY, "nope"));
    assertThat(both.policy().ttl()).isEqualTo(60);
  }
}
