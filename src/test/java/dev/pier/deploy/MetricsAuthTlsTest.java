package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code admin.metricsAuth: kubernetes} with {@code admin.tls.*} and {@code admin.metricsAudiences}
 * against a real API server: a token meant for Pier's audience reads {@code /metrics} over HTTPS;
 * plain HTTP gets no answer; a token of the API server's own audience (a static token, or a
 * ServiceAccount token without an audience) is refused; and a flood of random tokens from one
 * address makes Pier send at most its review budget of TokenReviews, counted in the API server's
 * audit log, while the rest get 429.
 */
@RealKubeApiServer(
    auditLog = true,
    users = @RealKubeApiServer.User(token = MetricsAuthTlsTest.STATIC_TOKEN, name = "scraper"))
class MetricsAuthTlsTest {
  static final String STATIC_TOKEN = "static-scraper-token";
  private static final String AUDIENCE = "pier-metrics";
  private static final int FLOOD = 10_000;
  private static final Pattern LIMITED =
      Pattern.compile("pier_metrics_auth_refused_total\\{reason=\"limited\"[^}]*} ([0-9.E]+)");

  private final HttpClient https =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(KubeApiServer.trustAllContext())
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @Test
  void httpsWithAnAudienceAndAFloodOfRandomTokensHeldToTheBudget(KubeApiServer kube)
      throws Exception {
    String ns = kube.createNamespace("scrapers");
    kube.client()
        .serviceAccounts()
        .inNamespace(ns)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("prom").endMetadata().build())
        .create();
    kube.client()
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("metrics-reader")
                .endMetadata()
                .addNewRule()
                .withNonResourceURLs("/metrics")
                .withVerbs("get")
                .endRule()
                .build())
        .create();
    kube.client()
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("scrapers-metrics-reader")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "metrics-reader")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withNamespace(ns)
                .withName("prom")
                .endSubject()
                .addNewSubject()
                .withKind("User")
                .withApiGroup("rbac.authorization.k8s.io")
                .withName("scraper")
                .endSubject()
                .build())
        .create();
    String forPier = token(kube, ns, AUDIENCE);
    String forApiServer = token(kube, ns, null);

    ScaleOutCredentials.Material tls = ScaleOutCredentials.shared();
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.LOCAL_POOLS.envName(), "127.243.3.0/24");
    env.put(PierOptions.ADMIN_METRICS_AUTH.envName(), "kubernetes");
    env.put(PierOptions.ADMIN_METRICS_AUDIENCES.envName(), AUDIENCE);
    env.put(PierOptions.ADMIN_TLS_CERT_FILE.envName(), tls.cert().toString());
    env.put(PierOptions.ADMIN_TLS_KEY_FILE.envName(), tls.key().toString());
    try (InProcessPier pier = InProcessPier.start(kube, env)) {
      int port = pier.pier().adminPort();
      // The probes' endpoints over HTTPS, without a token.
      assertThat(get("https", port, "/healthz", null).statusCode()).isEqualTo(200);
      assertThat(get("https", port, "/readyz", null).statusCode()).isEqualTo(200);

      Instant firstAllowed = Instant.now();
      HttpResponse<String> allowed = get("https", port, "/metrics", forPier);
      assertThat(allowed.statusCode()).isEqualTo(200);
      assertThat(allowed.body()).contains("pier_");
      // Plain HTTP, token and all, gets no HTTP answer at all.
      assertThat(plainStatus(port, forPier)).as("plain HTTP to the TLS port").isNotEqualTo(200);

      // Tokens the API server accepts, but not for Pier's audience.
      assertThat(get("https", port, "/metrics", forApiServer).statusCode()).isEqualTo(401);
      assertThat(get("https", port, "/metrics", STATIC_TOKEN).statusCode()).isEqualTo(401);

      Thread.sleep(2_000); // the budget those two took refills
      Instant floodStart = Instant.now();
      Map<Integer, AtomicInteger> answers = flood(port);
      Instant floodEnd = Instant.now();
      double seconds = Duration.between(floodStart, floodEnd).toMillis() / 1000.0;
      assertThat(answers.keySet()).as("answers to random tokens").containsOnly(401, 429);
      assertThat(answers.get(429).get()).isGreaterThan(FLOOD / 2);

      // Once its cached answer is gone, a token the API server accepted before is reviewed again,
      // whatever the budget (how much of it is left here depends on this machine's pace).
      long left = 10_500 - Duration.between(firstAllowed, Instant.now()).toMillis();
      if (left > 0) {
        Thread.sleep(left);
      }
      HttpResponse<String> after = get("https", port, "/metrics", forPier);
      assertThat(after.statusCode()).as("a token accepted before").isEqualTo(200);
      // The counter shows the flood's refusals.
      Matcher limited = LIMITED.matcher(after.body());
      assertThat(limited.find()).as("the limited counter in\n" + after.body()).isTrue();
      assertThat(Double.parseDouble(limited.group(1))).isEqualTo((double) answers.get(429).get());

      Thread.sleep(1_000); // the audit log's last lines
      List<Instant> reviews = tokenReviews(kube, floodStart, floodEnd);
      // One source: a burst of 10, then 5 a second (the overall budget is 10 a second).
      assertThat(reviews.size())
          .as("TokenReviews during a flood of %d tokens in %.1f s", FLOOD, seconds)
          .isEqualTo(answers.get(401).get())
          .isLessThanOrEqualTo(10 + (int) Math.ceil(5 * (seconds + 1)));
      assertThat(mostInOneSecond(reviews))
          .as("TokenReviews in any one second")
          .isLessThanOrEqualTo(20);
      System.out.printf(
          "MetricsAuthTlsTest: %d random tokens in %.1f s: %d TokenReviews (%d in the busiest"
              + " second), %d answered 429%n",
          FLOOD, seconds, reviews.size(), mostInOneSecond(reviews), answers.get(429).get());
    }
  }

  private static String token(KubeApiServer kube, String ns, String audience) {
    TokenRequestBuilder request = new TokenRequestBuilder();
    var spec = request.withNewSpec().withExpirationSeconds(3600L);
    if (audience != null) {
      spec.withAudiences(audience);
    }
    return kube.client()
        .serviceAccounts()
        .inNamespace(ns)
        .withName("prom")
        .tokenRequest(spec.endSpec().build())
        .getStatus()
        .getToken();
  }

  private Map<Integer, AtomicInteger> flood(int port) throws InterruptedException {
    Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
    Semaphore inFlight = new Semaphore(16);
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (int i = 0; i < FLOOD; i++) {
      inFlight.acquire();
      all.add(
          https
              .sendAsync(
                  request("https", port, "/metrics", UUID.randomUUID().toString()),
                  HttpResponse.BodyHandlers.discarding())
              .whenComplete(
                  (r, e) -> {
                    inFlight.release();
                    int code = e == null ? r.statusCode() : -1;
                    answers.computeIfAbsent(code, c -> new AtomicInteger()).incrementAndGet();
                  }));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    return answers;
  }

  /** When each TokenReview of the window reached the API server. */
  private static List<Instant> tokenReviews(KubeApiServer kube, Instant from, Instant to)
      throws IOException {
    return Files.readAllLines(kube.auditLogPath()).stream()
        .map(JsonObject::new)
        .filter(e -> "ResponseComplete".equals(e.getString("stage")))
        .filter(
            e ->
                e.getJsonObject("objectRef") != null
                    && "tokenreviews".equals(e.getJsonObject("objectRef").getString("resource")))
        .map(e -> Instant.parse(e.getString("requestReceivedTimestamp")))
        .filter(t -> !t.isBefore(from) && t.isBefore(to))
        .sorted()
        .toList();
  }

  private static int mostInOneSecond(List<Instant> sorted) {
    int most = 0;
    int first = 0;
    for (int last = 0; last < sorted.size(); last++) {
      while (Duration.between(sorted.get(first), sorted.get(last)).toMillis() >= 1000) {
        first++;
      }
      most = Math.max(most, last - first + 1);
    }
    return most;
  }

  /** The status plain HTTP gets from the TLS port, or -1 when no HTTP answer came. */
  private static int plainStatus(int port, String token) throws InterruptedException {
    HttpClient plain =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    try {
      return plain
          .send(request("http", port, "/metrics", token), HttpResponse.BodyHandlers.ofString())
          .statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  private HttpResponse<String> get(String scheme, int port, String path, String token)
      throws Exception {
    return https.send(request(scheme, port, path, token), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(String scheme, int port, String path, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b.build();
  }
}
