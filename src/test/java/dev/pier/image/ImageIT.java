package dev.pier.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.testkit.FreePorts;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import dev.pier.testkit.Services;
import dev.pier.testkit.TestBackend;
import dev.pier.testkit.Traffic;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pier's image as {@code scripts/image.sh} builds it from the jar under test (or the one it built
 * before from the same inputs): what its files are, and Pier running from it in a pod's place,
 * against a real API server with the pod's service account, serving a load balancer. Replaces the
 * Dockerfile's string checks: here the image itself is built, listed and run.
 */
@RealKubeApiServer
class ImageIT {
  private static final Logger LOG = LoggerFactory.getLogger(ImageIT.class);
  private static final String UID = "10001";

  /** Shells and interpreters: a kubeconfig exec plugin would need one, an attacker too. */
  private static final Pattern FORBIDDEN =
      Pattern.compile("sh|bash|dash|rbash|busybox|perl.*|python.*|[gm]?awk");

  private static final Duration READY = Duration.ofSeconds(90);
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private static PierImage image;
  private static Path root;

  @BeforeAll
  static void buildAndMount() {
    Path jar = Path.of(System.getProperty("pier.jar", "target/pier.jar"));
    assertThat(jar).as("the fat jar; run mvn verify so that package builds it").isRegularFile();
    image = PierImage.forJar(jar, jar.resolveSibling("image-it"));
    root = image.mount();
  }

  @AfterAll
  static void unmount() {
    if (image != null) {
      image.unmount();
    }
  }

  @Test
  void theImageHoldsNoShellOrInterpreterAndPiersFilesAtTheirPaths() throws IOException {
    List<String> found;
    try (Stream<Path> all = Files.walk(root)) {
      found =
          all.filter(p -> !Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS))
              .filter(p -> FORBIDDEN.matcher(p.getFileName().toString()).matches())
              .map(p -> "/" + root.relativize(p))
              .toList();
    }
    assertThat(found).as("shells and interpreters in the image").isEmpty();
    try (Stream<Path> top = Files.list(root)) {
      LOG.info("the image's root: {}", top.map(p -> p.getFileName().toString()).sorted().toList());
    }
    assertThat(root.resolve("opt/pier/pier.jar")).isRegularFile();
    assertThat(root.resolve("opt/pier/pier.jsa")).isRegularFile();
    assertThat(root.resolve("opt/pier/jvm.options"))
        .hasSameTextualContentAs(Path.of("conf/jvm.options"));
    assertThat(root.resolve("etc/pier/pier.yaml"))
        .hasSameTextualContentAs(Path.of("conf/pier.yaml"));
    assertThat(Files.readAllLines(root.resolve("etc/passwd")))
        .anyMatch(l -> l.startsWith("pier:x:" + UID + ":" + UID + ":"));
  }

  @Test
  void theImageCarriesTheOciLabelsAndTheSboms() throws IOException {
    ImageConfig config = image.config();
    assertThat(config.user()).isEqualTo(UID + ":" + UID);
    assertThat(config.entrypoint())
        .containsExactly(
            "/usr/bin/java",
            "@/opt/pier/jvm.options",
            "-XX:SharedArchiveFile=/opt/pier/pier.jsa",
            "-jar",
            "/opt/pier/pier.jar");
    assertThat(config.cmd()).containsExactly("--config", "/etc/pier/pier.yaml");
    Map<String, String> labels = config.labels();
    Matcher pom =
        Pattern.compile("<artifactId>pier</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(pom.find()).isTrue();
    assertThat(labels)
        .containsEntry("org.opencontainers.image.version", pom.group(1))
        .containsEntry("org.opencontainers.image.licenses", "Apache-2.0")
        .containsKeys("org.opencontainers.image.revision", "org.opencontainers.image.source");
    assertThat(labels.get("org.opencontainers.image.revision")).isNotBlank();
    assertThat(labels.get("org.opencontainers.image.source")).isNotBlank();
    // The Debian packages the recipe names, with the versions apt resolved, in a label and in
    // the image's SBOM of its Debian packages.
    String packages = labels.get("dev.pier.image.debian.packages");
    assertThat(packages).containsPattern("(^| )openjdk-17-jre-headless=17\\.\\S+");
    assertThat(packages).containsPattern("(^| )ca-certificates=\\S+");
    String jre = packages.replaceAll(".*openjdk-17-jre-headless=(\\S+).*", "$1");
    JsonObject debian =
        new JsonObject(Files.readString(root.resolve("opt/pier/sbom/debian.cdx.json")));
    assertThat(debian.getString("bomFormat")).isEqualTo("CycloneDX");
    assertThat(debian.getJsonArray("components").stream().map(JsonObject.class::cast))
        .anyMatch(
            c ->
                c.getString("name").equals("openjdk-17-jre-headless")
                    && c.getString("version").equals(jre))
        .noneMatch(c -> FORBIDDEN.matcher(c.getString("name")).matches())
        .noneMatch(c -> List.of("perl-base", "dpkg", "coreutils").contains(c.getString("name")));
    // Maven's SBOM: every library the jar bundles, with its version.
    JsonObject maven =
        new JsonObject(Files.readString(root.resolve("opt/pier/sbom/pier.cdx.json")));
    assertThat(maven.getJsonArray("components").stream().map(JsonObject.class::cast))
        .anyMatch(c -> c.getString("name").equals("vertx-core") && c.getString("version") != null)
        .anyMatch(c -> c.getString("name").equals("kubernetes-client"))
        .allMatch(c -> !c.getString("version", "").isBlank());
  }

  @Test
  void runsInAPodsPlaceAsItsUserAndServesALoadBalancer(KubeApiServer kube, @TempDir Path dir)
      throws IOException {
    Kubectl kubectl = new Kubectl(kube);
    kubectl.check("apply", "-f", "k8s/namespace.yaml");
    kubectl.check("apply", "-f", "k8s/rbac.yaml");
    KubernetesClient admin = kube.client();
    String token =
        admin
            .serviceAccounts()
            .inNamespace("pier")
            .withName("pier")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Path pod = Files.createDirectories(dir.resolve("pod"));
    new ServiceAccountFiles(token, kube.caCertificate(), "pier").writeUnder(pod, root);
    kube.createReadyNode("image-node", "127.0.0.1", Map.of());
    String ns = kube.createNamespace("image");
    int nodePort = kube.freeNodePort();
    int adminPort = FreePorts.take();
    String apiPort = kube.url().substring(kube.url().lastIndexOf(':') + 1);
    // What the kubelet and the manifests give the container: the API server's address, the pod's
    // name, the admin address; JAVA_TOOL_OPTIONS stands in for the 512 MiB memory limit.
    Map<String, String> env =
        Map.of(
            "KUBERNETES_SERVICE_HOST", "127.0.0.1",
            "KUBERNETES_SERVICE_PORT", apiPort,
            "POD_NAME", "pier-image-0",
            "HOSTNAME", "pier-image-0",
            "PIER_ADMIN_HOST", "127.0.0.1",
            "PIER_ADMIN_PORT", Integer.toString(adminPort),
            "PIER_LOCAL_HEALTH_CHECK_INTERVAL", "300ms",
            "JAVA_TOOL_OPTIONS", "-XX:MaxRAM=512m");
    try (TestBackend backend = TestBackend.start("image-node", "127.0.0.1", nodePort);
        ImageProcess pier =
            ImageProcess.start(
                root,
                pod,
                image.config(),
                env,
                adminPort,
                dir,
                kube.directory().resolve("pier-image.log"))) {
      await()
          .atMost(READY)
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                assertThat(pier.alive()).as("Pier's process; its log:\n%s", pier.log()).isTrue();
                assertThat(pier.status("/readyz")).isEqualTo(200);
              });
      assertThat(pier.jvmStatus("Uid")).isEqualTo(String.join("\t", UID, UID, UID, UID));
      assertThat(pier.jvmStatus("Gid")).isEqualTo(String.join("\t", UID, UID, UID, UID));

      admin
          .services()
          .inNamespace(ns)
          .resource(Services.loadBalancer(ns, "web", 8080, nodePort))
          .create();
      await().atMost(CONVERGE).until(() -> Services.ingressIp(admin, ns, "web") != null);
      String ip = Services.ingressIp(admin, ns, "web");
      await()
          .atMost(CONVERGE)
          .until(
              () -> Objects.toString(Traffic.get(ip, 8080), "").contains("hello from image-node"));
      assertThat(backend.requestCount()).isPositive();
      assertThat(pier.status("/readyz")).isEqualTo(200);
    }
  }
}
