package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorTest {
  private static final Map<String, String> EU_PROD = Map.of("region", "eu", "env", "prod");
  private static final Map<String, String> US_DEV = Map.of("region", "us", "env", "dev");
  private static final Map<String, String> BARE = Map.of();

  private static boolean matches(String selector, Map<String, String> labels) {
    return LabelSelector.parse(selector).matches(labels);
  }

  @Test
  void emptySelectsEverything() {
    assertThat(LabelSelector.parse("").isEmpty()).isTrue();
    assertThat(LabelSelector.parse("   ").isEmpty()).isTrue();
    assertThat(LabelSelector.parse(null).isEmpty()).isTrue();
    assertThat(matches("", EU_PROD)).isTrue();
    assertThat(matches("", BARE)).isTrue();
    assertThat(LabelSelector.parse("").matches(null)).isTrue();
  }

  @Test
  void equalityInBothSpellings() {
    assertThat(matches("region=eu", EU_PROD)).isTrue();
    assertThat(matches("region=eu", US_DEV)).isFalse();
    assertThat(matches("region==eu", EU_PROD)).isTrue();
    assertThat(matches("region==eu", US_DEV)).isFalse();
    assertThat(matches("region=eu", BARE)).isFalse();
  }

  @Test
  void inequalityAlsoHoldsWhenTheLabelIsMissing() {
    assertThat(matches("region!=eu", EU_PROD)).isFalse();
    assertThat(matches("region!=eu", US_DEV)).isTrue();
    assertThat(matches("region!=eu", BARE)).isTrue();
  }

  @Test
  void setMembership() {
    assertThat(matches("region in (eu,ap)", EU_PROD)).isTrue();
    assertThat(matches("region in (eu,ap)", US_DEV)).isFalse();
    assertThat(matches("region in (eu,ap)", BARE)).isFalse();
    assertThat(matches("region notin (eu,ap)", EU_PROD)).isFalse();
    assertThat(matches("region notin (eu,ap)", US_DEV)).isTrue();
    assertThat(matches("region notin (eu,ap)", BARE)).isTrue();
    assertThat(matches("region in(eu)", EU_PROD)).isTrue();
    assertThat(matches("region  in  ( ap , eu )", EU_PROD)).isTrue();
  }

  @Test
  void existence() {
    assertThat(matches("env", EU_PROD)).isTrue();
    assertThat(matches("env", BARE)).isFalse();
    assertThat(matches("!env", EU_PROD)).isFalse();
    assertThat(matches("!env", BARE)).isTrue();
    assertThat(matches("! env", BARE)).isTrue();
  }

  @Test
  void commasJoinRequirementsThatMustAllHold() {
    assertThat(matches("region=eu,env=prod", EU_PROD)).isTrue();
    assertThat(matches("region=eu,env=dev", EU_PROD)).isFalse();
    assertThat(matches("region in (eu,us), env!=dev, !gpu", EU_PROD)).isTrue();
    assertThat(matches("region in (eu,us), env!=dev, !gpu", US_DEV)).isFalse();
    assertThat(matches("region in (eu,us),env,!gpu", Map.of("region", "us", "env", "x"))).isTrue();
    assertThat(LabelSelector.parse("a=1,b in (2,3),!c,d").requirements()).hasSize(4);
  }

  @Test
  void anEmptyValueMatchesAnEmptyLabel() {
    assertThat(matches("tier=", Map.of("tier", ""))).isTrue();
    assertThat(matches("tier=", Map.of("tier", "web"))).isFalse();
    assertThat(matches("tier=,env=prod", Map.of("tier", "", "env", "prod"))).isTrue();
  }

  @Test
  void prefixedKeys() {
    Map<String, String> labels = Map.of("topology.kubernetes.io/region", "eu-1");
    assertThat(matches("topology.kubernetes.io/region=eu-1", labels)).isTrue();
    assertThat(matches("topology.kubernetes.io/region in (us-1)", labels)).isFalse();
    assertThat(matches("pier.dev/gpu", labels)).isFalse();
  }

  @Test
  void aKeyNamedLikeAnOperatorIsStillAKey() {
    assertThat(matches("in", Map.of("in", "x"))).isTrue();
    assertThat(matches("notin=y", Map.of("notin", "y"))).isTrue();
  }

  @Test
  void errorsNameTheBadPart() {
    assertBad("region=eu,", "trailing ','");
    assertBad(",region=eu", "expected a label key, found ','");
    assertBad("region in eu", "expected '(' after 'in', found 'eu'");
    assertBad("region in ()", "expected a value in the list after 'in', found ')'");
    assertBad("region in (eu", "expected ',' or ')' in the list after 'in', found the end");
    assertBad("region notin (eu us)", "found 'us'");
    assertBad(
        "region eu", "expected an operator (=, ==, !=, in, notin) after 'region', found 'eu'");
    assertBad("region=eu env=prod", "expected ',' or the end after a requirement, found 'env'");
    assertBad("region=(eu)", "expected a value after '=', found '('");
    assertBad("!", "expected a label key after '!', found the end");
    assertBad("!region=eu", "expected ',' or the end after a requirement, found '='");
    assertBad("=eu", "expected a label key, found '='");
    assertBad("count>3", "unsupported character or operator '>'");
    assertBad("-region=eu", "'-region' is not a label key");
    assertBad("a/b/c", "'a/b/c' is not a label key");
    assertBad("Pier.Dev/x", "'Pier.Dev/x' is not a label key");
    assertBad("k=" + "v".repeat(64), "is not a label value");
    assertBad("k in (ok,-bad)", "'-bad' is not a label value");
  }

  @Test
  void theLongestNameAndValueAreFine() {
    String name = "k".repeat(63);
    String value = "v".repeat(63);
    assertThat(matches(name + "=" + value, Map.of(name, value))).isTrue();
    assertBad("k".repeat(64), "is not a label key");
  }

  @Test
  void toStringIsTheText() {
    assertThat(LabelSelector.parse("a=b, c").toString()).isEqualTo("a=b, c");
  }

  private static void assertBad(String selector, String problem) {
    assertThatThrownBy(() -> LabelSelector.parse(selector))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("label selector '" + selector + "'")
        .hasMessageContaining(problem);
  }
}
