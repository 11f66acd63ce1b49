package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pier.federation.MemberStatus;
import dev.pier.model.FederationKeys;
import dev.pier.testkit.FederationConfig;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A member Secret's {@code server} pointed at an HTTPS host that is no API server, whose {@code
 * /readyz} answers something of its own: what it answers reaches none of the Secret's status, the
 * Events or Pier's log, whatever it answers (a text, a long text, a refusal); the reason says only
 * the status and what kind of answer it was.
 */
@RealKubeApiServer
class ProbeAnswersTest {
  private static final String SECRET = "TOPSECRET-xyz";
  private static final Duration CONVERGE = InProcessPier.CONVERGE;

  private final Vertx vertx = Vertx.vertx();
  private final SelfSignedCertificate cert = SelfSignedCertificate.create("localhost");
  private final AtomicInteger asked = new AtomicInteger();
  private volatile String mode = "text";
  private HttpServer internal;
  private KubeApiServer host;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final Logger pier = (Logger) LoggerFactory.getLogger("dev.pier");
  private Level pierLevel;

  @BeforeEach
  void setUp(KubeApiServer server) throws Exception {
    host = server;
    if (host.client().namespaces().withName("pier").get() == null) {
      host.client()
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName("pier").endMetadata().build())
          .create();
    }
    internal =
        vertx
            .createHttpServer(
                new HttpServerOptions().setSsl(true).setKeyCertOptions(cert.keyCertOptions()))
            .requestHandler(this::answer)
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    log.setContext(root.getLoggerContext());
    log.start();
    root.addAppender(log);
    pierLevel = pier.getLevel();
    pier.setLevel(Level.DEBUG);
  }

  @AfterEach
  void tearDown() {
    root.detachAppender(log);
    pier.setLevel(pierLevel);
    vertx.close().await();
    cert.delete();
  }

  /** The internal host: its health endpoints answer as {@link #mode} says, the rest 404. */
  private void answer(HttpServerRequest req) {
    var response = req.response();
    if (!req.path().equals("/readyz") && !req.path().equals("/healthz")) {
      response.setStatusCode(404).end("404 page not found\n");
      return;
    }
    asked.incrementAndGet();
    switch (mode) {
      case "text" -> response.end(SECRET);
      case "long" -> response.end(SECRET + "x".repeat(1 << 20));
      default ->
          response
              .setStatusCode(403)
              .putHeader("Content-Type", "application/json")
              .end("{\"kind\": \"Status\", \"message\": \"" + SECRET + "\"}");
    }
  }

  private String kubeconfig() throws Exception {
    String ca =
        Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(cert.certificatePath())));
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "- name: internal\n"
        + "  cluster:\n"
        + "    server: https://localhost:"
        + internal.actualPort()
        + "\n"
        + "    certificate-authority-data: "
        + ca
        + "\n"
        + "users:\n"
        + "- name: pier\n"
        + "  user:\n"
        + "    token: t0ken\n"
        + "contexts:\n"
        + "- name: internal\n"
        + "  context: {cluster: internal, user: pier}\n"
        + "current-context: internal\n";
  }

  private Secret secret() {
    return host.client().secrets().inNamespace("pier").withName("member-internal").get();
  }

  private String reason() {
    Secret s = secret();
    if (s == null || s.getMetadata().getAnnotations() == null) {
      return null;
    }
    MemberStatus status =
        MemberStatus.parse(
            s.getMetadata().getAnnotations().get(FederationKeys.MEMBER_STATUS_ANNOTATION));
    return status == null ? null : status.reason();
  }

  private String events() {
    return host.client().v1().events().inAnyNamespace().list().getItems().stream()
        .map(Event::getMessage)
        .collect(Collectors.joining("\n"));
  }

  private String logged() {
    synchronized (log) {
      return log.list.stream()
          .map(e -> e.getFormattedMessage() + " " + e.getThrowableProxy())
          .collect(Collectors.joining("\n"));
    }
  }

  @Test
  void whatAHostThatIsNoMemberAnswersIsNeverQuoted() throws Exception {
    String config =
        FederationConfig.host(host.kubeconfigPath())
            .loadBalancers(false)
            .health("300ms", "1s")
            .yaml();
    try (InProcessPier p = InProcessPier.startWithConfig(config, Map.of())) {
      host.client()
          .resource(
              new SecretBuilder()
                  .withNewMetadata()
                  .withNamespace("pier")
                  .withName("member-internal")
                  .withLabels(Map.of(FederationKeys.CLUSTER_SECRET_LABEL, "internal"))
                  .endMetadata()
                  .withData(
                      Map.of(
                          "kubeconfig",
                          Base64.getEncoder()
                              .encodeToString(kubeconfig().getBytes(StandardCharsets.UTF_8))))
                  .build())
          .create();

      await()
          .atMost(CONVERGE)
          .until(() -> "probe failed: not ready (HTTP 200, answer not \"ok\")".equals(reason()));

      mode = "long";
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  "probe failed: not ready (HTTP 200, answer longer than 4096 bytes)"
                      .equals(reason()));

      mode = "denied";
      await()
          .atMost(CONVERGE)
          .until(() -> "probe failed: not ready (HTTP 403 forbidden)".equals(reason()));
      assertThat(asked.get()).isGreaterThanOrEqualTo(3);
    }
    assertThat(Serialization.asJson(secret())).doesNotContain(SECRET);
    assertThat(events()).doesNotContain(SECRET);
    assertThat(logged()).contains("internal").doesNotContain(SECRET);
  }
}
