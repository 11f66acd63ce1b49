package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.testkit.InProcessPier;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.ScaleOutCredentials;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code admin.metricsAuth: kubernetes} against a real API server: a token whose user may get
 * {@code /metrics} gets 200, one without that right 403, none or an unknown one 401; the health
 * endpoints stay open, all over HTTPS ({@code admin.tls.*}). Pier runs as the shipped
 * ServiceAccount bound by {@code rbac.yaml} and the add-on {@code rbac-metrics-auth.yaml}: every
 * verb of the add-on is used and nothing is denied.
 */
@RealKubeApiServer(
    auditLog = true,
    users = {
      @RealKubeApiServer.User(
          token = MetricsAuthRbacTest.TOKEN,
          name = MetricsAuthRbacTest.USER,
          groups = {"system:serviceaccounts", "system:serviceaccounts:pier"}),
      @RealKubeApiServer.User(token = MetricsAuthRbacTest.SCRAPER_TOKEN, name = "scraper"),
      @RealKubeApiServer.User(token = MetricsAuthRbacTest.NOBODY_TOKEN, name = "nobody")
    })
class MetricsAuthRbacTest {
  static final String TOKEN = "pier-service-account-token";
  static final String USER = "system:serviceaccount:pier:pier";
  static final String SCRAPER_TOKEN = "scraper-token";
  static final String NOBODY_TOKEN = "nobody-token";
  private static final Path BASE = Manifests.DIR.resolve("rbac.yaml");
  private static final Path ADD_ON = Manifests.DIR.resolve("rbac-metrics-auth.yaml");
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(KubeApiServer.trustAllContext())
          .build();

  @Test
  void onlyATokenAllowedToGetMetricsReadsThemAndTheAddOnGrantsNothingUnused(KubeApiServer kube)
      throws Exception {
    Kubectl kubectl = new Kubectl(kube);
    kubectl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
    kubectl.check("apply", "-f", BASE.toString(), "-f", ADD_ON.toString());
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
                .withName("scraper-metrics-reader")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "metrics-reader")
                .addNewSubject()
                .withKind("User")
                .withApiGroup("rbac.authorization.k8s.io")
                .withName("scraper")
                .endSubject()
                .build())
        .create();
    Set<String> granted = RbacAudit.granted(ADD_ON);

    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.CLUSTER_KUBECONFIG.envName(), kube.kubeconfigFor(TOKEN).toString());
    env.put(PierOptions.LOCAL_POOLS.envName(), "127.243.2.0/24");
    env.put(PierOptions.ADMIN_METRICS_AUTH.envName(), "kubernetes");
    env.put(
        PierOptions.ADMIN_TLS_CERT_FILE.envName(), ScaleOutCredentials.shared().cert().toString());
    env.put(
        PierOptions.ADMIN_TLS_KEY_FILE.envName(), ScaleOutCredentials.shared().key().toString());
    try (InProcessPier pier = InProcessPier.start(kube, env)) {
      int port = pier.pier().adminPort();
      assertThat(status(port, "/metrics", null)).isEqualTo(401);
      assertThat(status(port, "/metrics", "not-a-token")).isEqualTo(401);
      assertThat(status(port, "/metrics", NOBODY_TOKEN)).isEqualTo(403);
      HttpResponse<String> allowed = get(port, "/metrics", SCRAPER_TOKEN);
      assertThat(allowed.statusCode()).isEqualTo(200);
      assertThat(allowed.body()).contains("pier_");
      // Cached: the same answer again.
      assertThat(status(port, "/metrics", SCRAPER_TOKEN)).isEqualTo(200);
      assertThat(status(port, "/metrics", NOBODY_TOKEN)).isEqualTo(403);
      assertThat(status(port, "/healthz", null)).isEqualTo(200);
      assertThat(status(port, "/readyz", null)).isEqualTo(200);
    }
    assertThat(RbacAudit.denied(kube, USER)).as("requests RBAC denied to Pier").isEmpty();
    assertThat(RbacAudit.used(kube, USER)).as("what Pier did").containsAll(granted);
  }

  private int status(int port, String path, String token) throws Exception {
    return get(port, path, token).statusCode();
  }

  private HttpResponse<String> get(int port, String path, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
