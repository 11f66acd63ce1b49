package dev.pier.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsAuthTest {
  private static JsonObject status(Object authenticated, Object audiences) {
    JsonObject s = new JsonObject().put("authenticated", authenticated);
    if (audiences != null) {
      s.put("audiences", audiences);
    }
    return s;
  }

  @Test
  void withoutAudiencesAnAuthenticatedTokenIsAccepted() {
    assertThat(MetricsAuth.accepted(status(true, null), List.of())).isTrue();
    assertThat(MetricsAuth.accepted(status(false, null), List.of())).isFalse();
    assertThat(MetricsAuth.accepted(new JsonObject(), List.of())).isFalse();
    assertThat(MetricsAuth.accepted(status("true", null), List.of())).isFalse();
  }

  @Test
  void withAudiencesTheAnswerMustNameOneOfThem() {
    List<String> pier = List.of("pier", "pier-metrics");
    assertThat(MetricsAuth.accepted(status(true, new JsonArray().add("pier-metrics")), pier))
        .isTrue();
    assertThat(
            MetricsAuth.accepted(
                status(true, new JsonArray().add("https://kubernetes.default.svc")), pier))
        .isFalse();
    assertThat(MetricsAuth.accepted(status(true, null), pier)).isFalse();
    assertThat(MetricsAuth.accepted(status(true, new JsonArray()), pier)).isFalse();
    assertThat(MetricsAuth.accepted(status(true, "pier"), pier)).isFalse();
    assertThat(MetricsAuth.accepted(status(false, new JsonArray().add("pier")), pier)).isFalse();
  }

  @Test
  void onlyABearerHeaderCarriesAToken() {
    assertThat(MetricsAuth.bearer("Bearer abc")).isEqualTo("abc");
    assertThat(MetricsAuth.bearer("bearer  abc ")).isEqualTo("abc");
    assertThat(MetricsAuth.bearer("Basic abc")).isNull();
    assertThat(MetricsAuth.bearer("Bearer ")).isNull();
    assertThat(MetricsAuth.bearer(null)).isNull();
  }
}
