package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import dev.pier.boot.AdminTlsFiles;
import dev.pier.boot.PierOptions;
import dev.pier.boot.ScaleOutNodes;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Helm chart, rendered by Helm's engine: lint, every preset under ci/, what each mode renders,
 * and the raw manifests in k8s/ equal to its renderings object for object, so the two never drift.
 * ChartDryRunTest sends every rendering to a real API server.
 */
class ChartTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static List<HasMetadata> typed(String rendering) {
    return Manifests.documents(rendering).stream()
        .map(doc -> (HasMetadata) SERIALIZATION.unmarshal(doc))
        .toList();
  }

  private static <T extends HasMetadata> T one(String rendering, Class<T> type) {
    return typed(rendering).stream()
        .filter(type::isInstance)
        .map(type::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName()));
  }

  private static <T extends HasMetadata> T named(String rendering, Class<T> type, String name) {
    return typed(rendering).stream()
        .filter(type::isInstance)
        .map(type::cast)
        .filter(o -> o.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
  }

  private static List<String> keys(String rendering) {
    return Chart.objects(rendering).stream().map(Chart::key).toList();
  }

  private static Map<String, Object> rawObjects(String... files) {
    List<Map<String, Object>> all = new ArrayList<>();
    for (String f : files) {
      all.addAll(Chart.objects(Manifests.read(Manifests.DIR.resolve(f))));
    }
    return Chart.normalized(all);
  }

  @Test
  void lintPassesStrict() {
    LintResult lint = new Helm(Chart.DIR).lint().strict().call();
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
    assertThat(lint.getMessages()).noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
  }

  @Test
  void everyPresetRendersOnBothKubernetesVersions() {
    assertThat(Chart.presets().keySet())
        .contains(
            "default",
            "hetzner",
            "webhook",
            "dns",
            "federation-host",
            "federation-member",
            "federation-member-namespaced",
            "replicas2",
            "monitoring",
            "scale-out");
    for (String preset : Chart.presets().keySet()) {
      for (String version : List.of(Chart.KUBE_CURRENT, Chart.KUBE_OLDEST)) {
        String rendering = Chart.render(preset, version);
        assertThat(typed(rendering)).as(preset + " on " + version).isNotEmpty();
      }
    }
  }

  @Test
  void theRawManifestsArePresetRawManifests() {
    // The raw files keep what they shipped before the chart (hetzner, two replicas), so that
    // applying them again never switches an installation's provider. namespace.yaml stays out
    // (helm install --create-namespace makes it), and so does the PodDisruptionBudget, which
    // comes only with the chart's replicas setting.
    assertThat(
            Chart.normalized(
                Chart.objects(Chart.render("raw-manifests", Chart.KUBE_CURRENT)).stream()
                    .filter(o -> !"PodDisruptionBudget".equals(o.get("kind")))
                    .toList()))
        .isEqualTo(rawObjects("rbac.yaml", "configmap.yaml", "deployment.yaml", "service.yaml"));
  }

  @Test
  void theRbacAddOnsAreTheRawAddOnFiles() throws IOException {
    Map<String, String> presetOf =
        Map.of(
            "rbac-federation-host.yaml", "federation-host",
            "rbac-federation-member.yaml", "federation-member",
            "rbac-federation-member-namespaced.yaml", "federation-member-namespaced",
            "rbac-dns.yaml", "dns",
            "rbac-metrics-auth.yaml", "metrics-auth");
    Map<String, Object> base = rawObjects("rbac.yaml");
    List<String> addOns;
    try (var files = Files.list(Manifests.DIR)) {
      addOns =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.startsWith("rbac-") && n.endsWith(".yaml"))
              .sorted()
              .toList();
    }
    assertThat(addOns).contains("rbac-federation-host.yaml", "rbac-federation-member.yaml");
    for (String file : addOns) {
      assertThat(presetOf).as("the chart template and preset of k8s/" + file).containsKey(file);
      Map<String, Object> rendered =
          Chart.normalized(
              Chart.ofKinds(
                  Chart.objects(Chart.render(presetOf.get(file), Chart.KUBE_CURRENT)),
                  "ServiceAccount",
                  "ClusterRole",
                  "ClusterRoleBinding",
                  "Role",
                  "RoleBinding"));
      rendered.keySet().removeIf(k -> base.containsKey(k) && base.get(k).equals(rendered.get(k)));
      assertThat(rendered).as(file).isEqualTo(rawObjects(file));
    }
  }

  @Test
  void theMonitoringConfigMapsAreTheRawOnes() {
    assertThat(
            Chart.normalized(
                Chart.ofKinds(
                    Chart.objects(Chart.render("monitoring", Chart.KUBE_CURRENT)), "ConfigMap")))
        .containsAllEntriesOf(
            rawObjects(
                "monitoring/pier-grafana-dashboard.yaml", "monitoring/pier-prometheus-rules.yaml"));
  }

  @Test
  void aPodDisruptionBudgetComesWithTwoReplicas() {
    assertThat(keys(Chart.render("default", Chart.KUBE_CURRENT)))
        .noneMatch(k -> k.startsWith("PodDisruptionBudget"));
    assertThat(pdbApiVersion(Chart.render("replicas2", Chart.KUBE_CURRENT))).isEqualTo("policy/v1");
    assertThat(pdbApiVersion(Chart.render("replicas2", Chart.KUBE_OLDEST))).isEqualTo("policy/v1");
  }

  /** The chart states the oldest release Pier supports: Helm refuses to install below it. */
  @Test
  void theChartRefusesAClusterOlderThanTheOldestSupportedRelease() {
    String older = Chart.KUBE_OLDEST.replaceFirst("\\.\\d+\\.\\d+$", ".34.9");
    assertThat(older).isEqualTo("v1.34.9");
    assertThatThrownBy(() -> Chart.render("default", older)).hasMessageContaining("kubeVersion");
  }

  private static String pdbApiVersion(String rendering) {
    return Chart.objects(rendering).stream()
        .filter(o -> "PodDisruptionBudget".equals(o.get("kind")))
        .map(o -> (String) o.get("apiVersion"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void theLocalProviderRunsOneReplicaOnTheNodesNetwork() {
    String rendering = Chart.render("local-pools", Chart.KUBE_CURRENT);
    PodSpec pod = one(rendering, Deployment.class).getSpec().getTemplate().getSpec();
    assertThat(pod.getHostNetwork()).isTrue();
    assertThat(pod.getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
    assertThat(pod.getNodeSelector()).containsEntry("kubernetes.io/hostname", "edge-1");
    assertThat(pod.getTolerations())
        .singleElement()
        .satisfies(t -> assertThat(t.getKey()).isEqualTo("node-role.kubernetes.io/edge"));
    assertThat(pierYaml(rendering)).contains("192.0.2.0/24");
    assertThatThrownBy(() -> Chart.template(Chart.KUBE_CURRENT).set("replicas", 2).call())
        .hasMessageContaining("replicas: 1");
    // Nor on the node's network.
    assertThatThrownBy(
            () ->
                Chart.template(Chart.KUBE_CURRENT)
                    .set("scaleOut.enabled", true)
                    .set("leaderElection.enabled", false)
                    .set("local.hostNetwork", true)
                    .call())
        .hasMessageContaining("scaleOut.enabled and local.hostNetwork do not mix");
  }

  @Test
  void hetznerTakesItsTokenFromASecretAndRunsTwoReplicasOffTheNodesNetwork() {
    String rendering = Chart.render("hetzner", Chart.KUBE_CURRENT);
    Deployment d = one(rendering, Deployment.class);
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    assertThat(d.getSpec().getTemplate().getSpec().getHostNetwork()).isNull();
    Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    EnvVar token =
        c.getEnv().stream()
            .filter(e -> e.getName().equals("HCLOUD_TOKEN"))
            .findFirst()
            .orElseThrow();
    assertThat(token.getValueFrom().getSecretKeyRef().getName()).isEqualTo("pier-hcloud");
    assertThat(c.getResources().getRequests().get("memory").toString()).isEqualTo("192Mi");
    assertThat(keys(rendering))
        .contains("Secret pier/pier-hcloud", "PodDisruptionBudget pier/pier");
    // Without a token value, the Secret is the user's own and the chart makes none.
    assertThat(keys(Chart.render("replicas2", Chart.KUBE_CURRENT)))
        .noneMatch(k -> k.startsWith("Secret"));
  }

  @Test
  void theWebhookTokenIsAMountedFileNamedInTheConfig() {
    String rendering = Chart.render("webhook", Chart.KUBE_CURRENT);
    PodSpec pod = one(rendering, Deployment.class).getSpec().getTemplate().getSpec();
    assertThat(pod.getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getSecret()).isNotNull();
              assertThat(v.getSecret().getSecretName()).isEqualTo("lb-webhook");
            });
    assertThat(pierYaml(rendering)).contains("tokenFile: /etc/pier-webhook/token");
    assertThat(pod.getContainers().get(0).getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/pier-webhook"));
    assertThatThrownBy(() -> Chart.template(Chart.KUBE_CURRENT).set("provider", "webhook").call())
        .hasMessageContaining("webhook.url is required");
  }

  @Test
  void metricsAuthServesTheAdminPortOverHttpsWithTheChartsCertificate(@TempDir Path dir)
      throws Exception {
    String rendering = Chart.render("metrics-auth", Chart.KUBE_CURRENT);
    PodSpec pod = one(rendering, Deployment.class).getSpec().getTemplate().getSpec();
    Container c = pod.getContainers().get(0);
    for (var probe : List.of(c.getLivenessProbe(), c.getReadinessProbe(), c.getStartupProbe())) {
      assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTPS");
    }
    assertThat(c.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/pier-admin-tls"));
    assertThat(
            pod.getVolumes().stream()
                .filter(v -> v.getSecret() != null)
                .map(v -> v.getSecret().getSecretName()))
        .contains("pier-admin-tls");
    assertThat(named(rendering, Service.class, "pier-metrics").getSpec().getPorts().get(0))
        .extracting(ServicePort::getAppProtocol)
        .isEqualTo("https");
    Path file = dir.resolve("pier.yaml");
    Files.writeString(file, pierYaml(rendering));
    ConfigValues config = new ConfigLoader(PierOptions.ALL, k -> null).load(file);
    assertThat(config.get(PierOptions.ADMIN_TLS_CERT_FILE))
        .isEqualTo("/etc/pier-admin-tls/tls.crt");
    assertThat(config.get(PierOptions.ADMIN_TLS_KEY_FILE)).isEqualTo("/etc/pier-admin-tls/tls.key");

    // The Secret's files as the pod sees them pass Pier's startup check, and the certificate
    // names the metrics Service.
    Secret secret = named(rendering, Secret.class, "pier-admin-tls");
    assertThat(secret.getData()).containsOnlyKeys("ca.crt", "tls.crt", "tls.key");
    Path mounted = Files.createDirectories(dir.resolve("etc-pier-admin-tls"));
    for (var e : secret.getData().entrySet()) {
      Files.write(mounted.resolve(e.getKey()), java.util.Base64.getDecoder().decode(e.getValue()));
    }
    Map<String, String> env =
        Map.of(
            PierOptions.ADMIN_TLS_CERT_FILE.envName(), mounted.resolve("tls.crt").toString(),
            PierOptions.ADMIN_TLS_KEY_FILE.envName(), mounted.resolve("tls.key").toString());
    assertThat(AdminTlsFiles.check(new ConfigLoader(PierOptions.ALL, env::get).load(file)))
        .isTrue();
    java.security.cert.X509Certificate cert =
        (java.security.cert.X509Certificate)
            java.security.cert.CertificateFactory.getInstance("X.509")
                .generateCertificate(Files.newInputStream(mounted.resolve("tls.crt")));
    assertThat(cert.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))))
        .contains("pier-metrics", "pier-metrics.pier.svc");

    // Your own Secret instead, and HTTPS without authentication; audiences reach the config.
    String own =
        Chart.template(Chart.KUBE_CURRENT)
            .set("admin.tls.enabled", true)
            .set("admin.tls.existingSecret", "my-admin-cert")
            .set("admin.metricsAudiences[0]", "pier")
            .call();
    assertThat(keys(own)).noneMatch(k -> k.contains("admin-tls"));
    assertThat(
            one(own, Deployment.class).getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getSecret() != null)
                .map(v -> v.getSecret().getSecretName()))
        .contains("my-admin-cert");
    assertThat(pierYaml(own)).contains("certFile: /etc/pier-admin-tls/tls.crt", "- pier");

    // Without either, plain HTTP as before: no Secret, no scheme.
    String plain = Chart.render("default", Chart.KUBE_CURRENT);
    assertThat(keys(plain)).noneMatch(k -> k.contains("admin-tls"));
    assertThat(
            one(plain, Deployment.class)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getLivenessProbe()
                .getHttpGet()
                .getScheme())
        .isNull();
    assertThat(pierYaml(plain)).doesNotContain("tls:", "certFile");
  }

  @Test
  void eachModeGetsTheRbacItNeeds() {
    List<String> base =
        List.of(
            "ServiceAccount pier/pier",
            "ClusterRole pier",
            "ClusterRoleBinding pier",
            "Role pier/pier-leader-election",
            "RoleBinding pier/pier-leader-election");
    assertThat(keys(Chart.render("default", Chart.KUBE_CURRENT)))
        .containsAll(base)
        .noneMatch(k -> k.contains("-dns") || k.contains("federation"));
    assertThat(keys(Chart.render("dns", Chart.KUBE_CURRENT)))
        .containsAll(base)
        .contains("ClusterRole pier-dns", "ClusterRoleBinding pier-dns");
    assertThat(keys(Chart.render("federation-host", Chart.KUBE_CURRENT)))
        .containsAll(base)
        .contains("Role pier/pier-federation-members", "RoleBinding pier/pier-federation-members");
    // A member runs no Pier: only the identity the host uses there.
    assertThat(keys(Chart.render("federation-member", Chart.KUBE_CURRENT)))
        .containsExactlyInAnyOrder(
            "ServiceAccount pier/pier-federation",
            "ClusterRole pier-federation-member",
            "ClusterRoleBinding pier-federation-member");
    // Scoped to namespaces: a Role in each listed one, and cluster-wide only the health probe.
    String namespaced =
        Chart.template(Chart.KUBE_CURRENT)
            .withValuesFile(Chart.preset("federation-member-namespaced"))
            .set("federation.memberNamespaces[0]", "shop")
            .set("federation.memberNamespaces[1]", "api")
            .call();
    assertThat(keys(namespaced))
        .containsExactlyInAnyOrder(
            "ServiceAccount pier/pier-federation",
            "ClusterRole pier-federation-member-probe",
            "ClusterRoleBinding pier-federation-member-probe",
            "Role shop/pier-federation-member",
            "RoleBinding shop/pier-federation-member",
            "Role api/pier-federation-member",
            "RoleBinding api/pier-federation-member");
  }

  @Test
  void aNamespacedMemberWithoutNamespacesFailsToRenderNamingTheValue() {
    assertThatThrownBy(
            () ->
                Chart.template(Chart.KUBE_CURRENT)
                    .set("federation.role", "member")
                    .set("federation.memberScope", "namespaces")
                    .call())
        .hasMessageContaining(
            "federation.memberScope namespaces needs federation.memberNamespaces");
  }

  @Test
  void everyRenderedConfigIsValidForPier(@TempDir Path dir) throws IOException {
    for (String preset : Chart.presets().keySet()) {
      String rendering = Chart.render(preset, Chart.KUBE_CURRENT);
      if (preset.startsWith("federation-member")) {
        assertThat(keys(rendering)).noneMatch(k -> k.startsWith("ConfigMap"));
        continue;
      }
      Path file = dir.resolve(preset + ".yaml");
      Files.writeString(file, pierYaml(rendering));
      ConfigValues config = new ConfigLoader(PierOptions.ALL, name -> null).load(file);
      // One of the two ways replicas coordinate, never both (Pier refuses to start with both).
      assertThat(config.get(PierOptions.SCALE_OUT_ENABLED))
          .as(preset)
          .isEqualTo(preset.equals("scale-out"))
          .isNotEqualTo(config.get(PierOptions.LEADER_ELECTION_ENABLED));
      assertThat(config.get(PierOptions.LOG_FORMAT)).as(preset).isEqualTo("json");
      Deployment d = one(rendering, Deployment.class);
      boolean local = config.get(PierOptions.PROVIDER).equals("local");
      assertThat(Boolean.TRUE.equals(d.getSpec().getTemplate().getSpec().getHostNetwork()))
          .as(preset + ": host networking goes with the local provider")
          .isEqualTo(local);
      if (local) {
        assertThat(d.getSpec().getReplicas()).as(preset).isEqualTo(1);
      }
    }
  }

  @Test
  void configIsMergedOverWhatTheValuesSet() {
    String rendering =
        Chart.template(Chart.KUBE_CURRENT)
            .set("config.orphans.cleanup", true)
            .set("config.leaderElection.leaseDuration", "30s")
            .call();
    String yaml = pierYaml(rendering);
    assertThat(yaml).contains("cleanup: true", "leaseDuration: 30s", "provider: local");
    assertThat(yaml).doesNotContain("leaseDuration: 15s");
  }

  @Test
  void theAdminEndpointListensOnThePodIpOnly() {
    for (String preset : List.of("default", "federation-host")) {
      Container c =
          one(Chart.render(preset, Chart.KUBE_CURRENT), Deployment.class)
              .getSpec()
              .getTemplate()
              .getSpec()
              .getContainers()
              .get(0);
      assertThat(c.getEnv())
          .as(preset)
          .anySatisfy(
              e -> {
                assertThat(e.getName()).isEqualTo("PIER_ADMIN_HOST");
                assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
              });
    }
  }

  @Test
  void memberSecretsCanLiveInANamespaceOfTheirOwnWithTheRoleThere() {
    String rendering =
        Chart.template(Chart.KUBE_CURRENT)
            .set("federation.role", "host")
            .set("federation.secretNamespace", "pier-members")
            .call();
    assertThat(keys(rendering))
        .contains(
            "Role pier-members/pier-federation-members",
            "RoleBinding pier-members/pier-federation-members")
        .doesNotContain("Role pier/pier-federation-members");
    assertThat(pierYaml(rendering)).contains("secretNamespace: pier-members");
  }

  @Test
  void dnsGetsItsApiKeyFromASecret() {
    String rendering = Chart.render("dns", Chart.KUBE_CURRENT);
    Container c =
        one(rendering, Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("PDNS_API_KEY");
              assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("pier-pdns");
            });
    assertThat(pierYaml(rendering)).contains("apiKeyEnv: PDNS_API_KEY", "name: example.com");
  }

  @Test
  void theChartVersionIsPiersVersion() throws IOException {
    String pom = Files.readString(Path.of("pom.xml"));
    Matcher m =
        Pattern.compile("<artifactId>pier</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
    assertThat(m.find()).isTrue();
    String chart = Files.readString(Chart.DIR.resolve("Chart.yaml"));
    String version = m.group(1);
    assertThat(chart)
        .contains("\nversion: " + version + "\n", "\nappVersion: \"" + version + "\"\n");
    Deployment d = one(Chart.render("default", Chart.KUBE_CURRENT), Deployment.class);
    assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("pier:" + version);
  }

  @Test
  void theReadmesInstallCommandsRender() {
    String readme = Manifests.read(Path.of("README.md"));
    assertThat(readme)
        .contains("helm install pier k8s/chart/pier -n pier --create-namespace")
        .contains(
            "--set 'local.pools={192.0.2.0/24}' --set nodeSelector.\"kubernetes\\.io/hostname\"=edge-1")
        .contains("--set provider=hetzner --set replicas=2");
    String local =
        Chart.template(Chart.KUBE_CURRENT)
            .set("image.repository", "registry.example.com/pier")
            .set("local.pools", "{192.0.2.0/24}")
            .set("nodeSelector.kubernetes\\.io/hostname", "edge-1")
            .call();
    assertThat(pierYaml(local)).contains("192.0.2.0/24");
    PodSpec pod = one(local, Deployment.class).getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).containsEntry("kubernetes.io/hostname", "edge-1");
    assertThat(pod.getContainers().get(0).getImage()).isEqualTo("registry.example.com/pier:0.9.0");
    String hetzner =
        Chart.template(Chart.KUBE_CURRENT).set("provider", "hetzner").set("replicas", 2).call();
    assertThat(keys(hetzner))
        .contains("PodDisruptionBudget pier/pier")
        .noneMatch(k -> k.startsWith("Secret"));
  }

  private static final List<String> SCALE_OUT_OBJECTS =
      List.of(
          "Service pier/pier-replicas",
          "Role pier/pier-scale-out",
          "RoleBinding pier/pier-scale-out",
          "NetworkPolicy pier/pier-scale-out");

  @Test
  void scaleOutRendersTheReplicasServiceItsRoleAndTheNetworkPolicy(@TempDir Path dir)
      throws Exception {
    String rendering = Chart.render("scale-out", Chart.KUBE_CURRENT);
    assertThat(keys(rendering))
        .containsAll(SCALE_OUT_OBJECTS)
        .contains("PodDisruptionBudget pier/pier");
    Deployment d = one(rendering, Deployment.class);
    assertThat(d.getSpec().getReplicas()).isEqualTo(3);
    Map<String, String> podLabels = d.getSpec().getTemplate().getMetadata().getLabels();
    // What Pier reads to refuse scale-out on the node's network.
    assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("POD_IP");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
            })
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("HOST_IP");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.hostIP");
            });

    // Discovery through the cluster's DNS: a headless Service whose name lists every replica,
    // ready or not (a replica joins before it is ready).
    Service replicas = named(rendering, Service.class, "pier-replicas");
    assertThat(replicas.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(replicas.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(replicas.getSpec().getSelector()).isEqualTo(podLabels);
    ServicePort port = replicas.getSpec().getPorts().get(0);
    assertThat(replicas.getSpec().getPorts()).hasSize(1);
    assertThat(port.getName()).isEqualTo("membership");
    assertThat(port.getPort()).isEqualTo(5701);
    assertThat(port.getTargetPort()).isEqualTo(new IntOrString(5701));

    // The Leases' updates, lists and deletes (the shard Leases, each replica's own); discovery
    // reads nothing from the API server.
    Role role = named(rendering, Role.class, "pier-scale-out");
    assertThat(role.getRules())
        .extracting(ChartTest::rule)
        .containsExactlyInAnyOrder("[coordination.k8s.io] leases [] [update, list, delete]");
    RoleBinding binding = named(rendering, RoleBinding.class, "pier-scale-out");
    assertThat(binding.getRoleRef().getName()).isEqualTo("pier-scale-out");
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName()).isEqualTo("pier");
              assertThat(s.getNamespace()).isEqualTo("pier");
            });

    // Between the replicas only the membership and event-bus ports, both ways; the admin port
    // from anywhere; other egress left as it was.
    NetworkPolicy policy = named(rendering, NetworkPolicy.class, "pier-scale-out");
    assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isEqualTo(podLabels);
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
    List<NetworkPolicyIngressRule> ingress = policy.getSpec().getIngress();
    assertThat(ingress).hasSize(2);
    assertThat(ingress.get(0).getPorts())
        .extracting(p -> p.getPort().getIntVal())
        .containsExactly(5701, 5711);
    assertThat(ingress.get(0).getFrom())
        .singleElement()
        .satisfies(
            peer -> {
              assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(podLabels);
              assertThat(peer.getNamespaceSelector()).isNull();
            });
    assertThat(ingress.get(1).getFrom()).isEmpty();
    assertThat(ingress.get(1).getPorts())
        .singleElement()
        .satisfies(p -> assertThat(p.getPort()).isEqualTo(new IntOrString("admin")));
    var egress = policy.getSpec().getEgress();
    assertThat(egress).hasSize(2);
    assertThat(egress.get(0).getTo())
        .singleElement()
        .satisfies(peer -> assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(podLabels));
    assertThat(egress.get(0).getPorts())
        .extracting(p -> p.getPort().getIntVal())
        .containsExactly(5701, 5711);
    assertThat(egress.get(1).getPorts()).isEmpty();
    assertThat(egress.get(1).getTo())
        .anySatisfy(
            peer -> {
              assertThat(peer.getNamespaceSelector()).isNotNull();
              assertThat(peer.getPodSelector().getMatchExpressions())
                  .singleElement()
                  .satisfies(
                      e -> {
                        assertThat(e.getKey()).isEqualTo("app.kubernetes.io/name");
                        assertThat(e.getOperator()).isEqualTo("NotIn");
                        assertThat(e.getValues()).containsExactly("pier");
                      });
            });
    assertThat(egress.get(1).getTo())
        .filteredOn(peer -> peer.getIpBlock() != null)
        .extracting(peer -> peer.getIpBlock().getCidr())
        .containsExactly("0.0.0.0/0", "::/0");

    Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getPorts())
        .extracting(ContainerPort::getName, ContainerPort::getContainerPort)
        .contains(tuple("membership", 5701), tuple("eventbus", 5711));
    // The event bus's TLS: the chart's Secret, mounted where pier.yaml says.
    assertThat(c.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getName()).isEqualTo("scale-out-tls");
              assertThat(m.getMountPath()).isEqualTo("/etc/pier-scale-out-tls");
            });
    assertThat(d.getSpec().getTemplate().getSpec().getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).isEqualTo("scale-out-tls");
              assertThat(v.getSecret().getSecretName()).isEqualTo("pier-scale-out-tls");
            });
    assertThat(c.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo(PierOptions.SCALE_OUT_HOST.envName());
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
            });

    Path file = dir.resolve("pier.yaml");
    Files.writeString(file, pierYaml(rendering));
    ConfigValues config = new ConfigLoader(PierOptions.ALL, name -> null).load(file);
    assertThat(config.get(PierOptions.SCALE_OUT_ENABLED)).isTrue();
    assertThat(config.get(PierOptions.LEADER_ELECTION_ENABLED)).isFalse();
    assertThat(config.get(PierOptions.SCALE_OUT_KUBERNETES_SERVICE)).isEqualTo("pier-replicas");
    assertThat(config.get(PierOptions.SCALE_OUT_MEMBERS)).isEmpty();
    assertThat(config.get(PierOptions.SCALE_OUT_SHARDS)).isEqualTo(32);
    assertThat(config.get(PierOptions.SCALE_OUT_LEASE_DURATION)).isEqualTo(Duration.ofSeconds(15));
    assertThat(config.get(PierOptions.SCALE_OUT_RENEW_DEADLINE)).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.get(PierOptions.SCALE_OUT_RETRY_PERIOD)).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.get(PierOptions.SCALE_OUT_HEARTBEAT_TIMEOUT))
        .isEqualTo(Duration.ofSeconds(10));
    // The shard Leases are named after the one Lease: <leaseName>-shard-<n>.
    assertThat(config.get(PierOptions.LEADER_ELECTION_LEASE_NAME)).isEqualTo("pier");
    assertThat(config.get(PierOptions.SCALE_OUT_EVENT_BUS_PORT)).isEqualTo(5711);
    assertThat(config.get(PierOptions.SCALE_OUT_TLS_INSECURE)).isFalse();

    // The chart's Secret holds a CA and a certificate it signed, for TLS clients and servers:
    // what Pier checks at startup, on the files as the pod sees them.
    Secret secret = named(rendering, Secret.class, "pier-scale-out-tls");
    assertThat(secret.getData()).containsOnlyKeys("ca.crt", "tls.crt", "tls.key");
    Path mounted = dir.resolve("etc-pier-scale-out-tls");
    Files.createDirectories(mounted);
    for (var e : secret.getData().entrySet()) {
      Files.write(mounted.resolve(e.getKey()), java.util.Base64.getDecoder().decode(e.getValue()));
    }
    Map<String, String> env =
        Map.of(
            PierOptions.SCALE_OUT_TLS_CERT_FILE.envName(), mounted.resolve("tls.crt").toString(),
            PierOptions.SCALE_OUT_TLS_KEY_FILE.envName(), mounted.resolve("tls.key").toString(),
            PierOptions.SCALE_OUT_TLS_CA_FILE.envName(), mounted.resolve("ca.crt").toString());
    ConfigValues mountedConfig = new ConfigLoader(PierOptions.ALL, env::get).load(file);
    ScaleOutNodes.checkTls(mountedConfig);
    java.security.cert.X509Certificate cert =
        (java.security.cert.X509Certificate)
            java.security.cert.CertificateFactory.getInstance("X.509")
                .generateCertificate(Files.newInputStream(mounted.resolve("tls.crt")));
    assertThat(cert.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
  }

  private static String rule(PolicyRule r) {
    return r.getApiGroups()
        + " "
        + String.join(",", r.getResources())
        + " "
        + r.getResourceNames()
        + " "
        + r.getVerbs();
  }

  @Test
  void withoutScaleOutNoPresetRendersAnyOfIt() {
    for (String preset : Chart.presets().keySet()) {
      if (preset.equals("scale-out") || preset.startsWith("federation-member")) {
        continue;
      }
      String rendering = Chart.render(preset, Chart.KUBE_CURRENT);
      assertThat(keys(rendering))
          .as(preset)
          .noneMatch(k -> k.startsWith("NetworkPolicy"))
          .doesNotContainAnyElementsOf(SCALE_OUT_OBJECTS);
      Container c =
          one(rendering, Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
      assertThat(c.getPorts())
          .as(preset)
          .extracting(ContainerPort::getName)
          .containsExactly("admin");
      assertThat(c.getEnv())
          .as(preset)
          .extracting(EnvVar::getName)
          .doesNotContain(PierOptions.SCALE_OUT_HOST.envName());
      assertThat(pierYaml(rendering)).as(preset).doesNotContain("scaleOut");
    }
  }

  @Test
  void scaleOutWithLeaderElectionFailsNamingBoth() {
    // leaderElection.enabled is true by default: scale-out asks for it to be turned off.
    assertThatThrownBy(
            () ->
                Chart.template(Chart.KUBE_CURRENT)
                    .set("provider", "hetzner")
                    .set("replicas", 3)
                    .set("scaleOut.enabled", true)
                    .call())
        .hasMessageContaining("scaleOut.enabled")
        .hasMessageContaining("leaderElection.enabled");
    // The local provider still runs one replica, scale-out or not.
    assertThatThrownBy(
            () ->
                Chart.template(Chart.KUBE_CURRENT)
                    .set("replicas", 2)
                    .set("scaleOut.enabled", true)
                    .set("leaderElection.enabled", false)
                    .call())
        .hasMessageContaining("replicas: 1");
  }

  @Test
  void theScaleOutAddOnIsTheRawAddOnFile() {
    Map<String, Object> raw = rawObjects("scale-out.yaml");
    assertThat(raw.keySet()).containsExactlyInAnyOrderElementsOf(SCALE_OUT_OBJECTS);
    Map<String, Object> rendered =
        Chart.normalized(Chart.objects(Chart.render("scale-out", Chart.KUBE_CURRENT)));
    rendered.keySet().retainAll(raw.keySet());
    assertThat(rendered).isEqualTo(raw);
  }

  private static String pierYaml(String rendering) {
    return one(rendering, ConfigMap.class).getData().get("pier.yaml");
  }
}
