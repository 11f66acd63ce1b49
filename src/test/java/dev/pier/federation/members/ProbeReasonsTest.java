package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.kube.AsyncKubeApi;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** Why a probe failed, in Pier's words: never what the member's server answered. */
class ProbeReasonsTest {
  private static final String SECRET = "TOPSECRET-xyz";

  @Test
  void okIsReadyAndAnyOtherAnswerIsNamedByItsStatusAlone() {
    assertThat(ProbeReasons.ofAnswer(200, "ok", false)).isNull();
    assertThat(ProbeReasons.ofAnswer(200, "ok\n", false)).isNull();
    assertThat(ProbeReasons.ofAnswer(200, SECRET, false))
        .isEqualTo("not ready (HTTP 200, answer not \"ok\")");
    assertThat(ProbeReasons.ofAnswer(200, "", true))
        .isEqualTo("not ready (HTTP 200, answer longer than 4096 bytes)");
    assertThat(ProbeReasons.ofAnswer(503, "[-]etcd failed: " + SECRET, false))
        .isEqualTo("not ready (HTTP 503 service unavailable)");
    assertThat(ProbeReasons.ofAnswer(403, "{\"message\": \"" + SECRET + "\"}", false))
        .isEqualTo("not ready (HTTP 403 forbidden)");
    assertThat(ProbeReasons.ofAnswer(418, SECRET, false)).isEqualTo("not ready (HTTP 418)");
    // "ok" with another status is no readiness either.
    assertThat(ProbeReasons.ofAnswer(302, "ok", false)).isEqualTo("not ready (HTTP 302)");
  }

  @Test
  void aFailureIsNamedByItsKindNeverItsMessage() {
    Duration timeout = Duration.ofSeconds(3);
    assertThat(ProbeReasons.ofFailure(new TimeoutException(SECRET), timeout))
        .isEqualTo("no answer within 3s");
    assertThat(
            ProbeReasons.ofFailure(
                new CompletionException(new ConnectException("refused: " + SECRET)), timeout))
        .isEqualTo("connection refused or unreachable");
    assertThat(ProbeReasons.ofFailure(new UnknownHostException(SECRET), timeout))
        .isEqualTo("server name not resolved");
    assertThat(ProbeReasons.ofFailure(new IOException(new SSLHandshakeException(SECRET)), timeout))
        .startsWith("TLS failed");
    assertThat(ProbeReasons.ofFailure(new IOException(SECRET), timeout))
        .isEqualTo("request failed (IOException)");
  }

  @Test
  void aVersionIsTakenOnlyWhenItLooksLikeOne() {
    assertThat(gitVersion(200, "{\"gitVersion\": \"v1.37.2\"}")).isEqualTo("v1.37.2");
    assertThat(gitVersion(200, "{\"gitVersion\": \"v1.31.4+k3s1\"}")).isEqualTo("v1.31.4+k3s1");
    assertThat(gitVersion(200, "{\"gitVersion\": \"" + SECRET + "\"}")).isEmpty();
    assertThat(gitVersion(200, "{\"gitVersion\": \"v1.2.3 " + SECRET + "\"}")).isEmpty();
    assertThat(gitVersion(200, SECRET)).isEmpty();
    assertThat(gitVersion(401, "{\"gitVersion\": \"v1.37.2\"}")).isEmpty();
    assertThat(MemberStatusReporter.gitVersion(new AsyncKubeApi.LimitedAnswer(200, "", true)))
        .isEmpty();
  }

  private static String gitVersion(int code, String body) {
    return MemberStatusReporter.gitVersion(new AsyncKubeApi.LimitedAnswer(code, body, false));
  }
}
