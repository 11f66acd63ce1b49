package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.boot.PierOptions;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.shards.ScaleOutOptions;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.Kubectl;
import dev.pier.testkit.RealKubeApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shipped manifest is accepted by a real API server with strict validation (1.20 drops
 * unknown fields silently otherwise), and says what the documentation promises.
 */
@RealKubeApiServer
class ManifestsTest {
  private static Kubectl kubectl;

  @BeforeAll
  static void setUp(KubeApiServer kube) {
    kubectl = new Kubectl(kube);
    // Namespaced objects can be dry-run only in an existing namespace.
    kubectl.check("apply", "-f", Manifests.DIR.resolve("namespace.yaml").toString());
  }

  @Test
  void everyManifestIsAcceptedWithStrictValidation() {
    List<Path> files = Manifests.all();
    assertThat(files)
        .extracting(p -> Manifests.DIR.relativize(p).toString())
        .contains(
            "namespace.yaml",
            "rbac.yaml",
            "rbac-dns.yaml",
            "rbac-metrics-auth.yaml",
            "rbac-federation-host.yaml",
            "rbac-federation-member.yaml",
            "rbac-federation-member-namespaced.yaml",
            "configmap.yaml",
            "deployment.yaml",
            "service.yaml",
            "scale-out.yaml",
            "monitoring/pier-grafana-dashboard.yaml",
            "monitoring/pier-prometheus-rules.yaml");
    for (Path file : files) {
      Kubectl.Result r =
          kubectl.run("apply", "--dry-run=server", "--validate=strict", "-f", file.toString());
      assertThat(r.ok()).as(file + ":\n" + r.output()).isTrue();
    }
  }

  @Test
  void strictValidationRejectsAnUnknownField(@TempDir Path dir) throws IOException {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(
        bad,
        Manifests.read(Manifests.DIR.resolve("service.yaml"))
            .replace("  type: ClusterIP", "  type: ClusterIP\n  sessionAfinity: None"));
    Kubectl.Result r =
        kubectl.run("apply", "--dry-run=server", "--validate=strict", "-f", bad.toString());
    assertThat(r.ok()).isFalse();
    assertThat(r.output()).contains("sessionAfinity");
  }

  @Test
  void monitoringConfigMapsHoldTheFilesTheyWrap() {
    assertThat(
            Manifests.configMap(Manifests.MONITORING.resolve("pier-grafana-dashboard.yaml"))
                .getData())
        .containsExactly(
            Map.entry(
                "pier-dashboard.json",
                Manifests.read(Manifests.MONITORING_FILES.resolve("pier-dashboard.json"))));
    assertThat(
            Manifests.configMap(Manifests.MONITORING.resolve("pier-prometheus-rules.yaml"))
                .getData())
        .containsExactly(
            Map.entry(
                "pier-rules.yaml",
                Manifests.read(Manifests.MONITORING_FILES.resolve("pier-rules.yaml"))));
  }

  @Test
  void shippedConfigIsValidElectsALeaderAndNamesItsProvider(@TempDir Path dir) throws IOException {
    ConfigMap cm = Manifests.configMap(Manifests.DIR.resolve("configmap.yaml"));
    String yaml = cm.getData().get("pier.yaml");
    assertThat(yaml).containsPattern("(?m)^provider: \\w+");
    Path file = dir.resolve("pier.yaml");
    Files.writeString(file, yaml);
    ConfigValues config = new ConfigLoader(PierOptions.ALL, name -> null).load(file);
    assertThat(config.get(PierOptions.LEADER_ELECTION_ENABLED)).isTrue();
    assertThat(config.get(PierOptions.LOG_FORMAT)).isEqualTo("json");
    assertThat(config.get(PierOptions.ADMIN_PORT)).isEqualTo(9080);
    // Two replicas go with a cloud provider; the local provider would need host networking. Kept
    // as shipped before the chart, so that re-applying the files never switches a provider.
    assertThat(config.get(PierOptions.PROVIDER)).isEqualTo("hetzner");
  }

  @Test
  void deploymentRunsTwoLockedDownReplicasProbedOnTheAdminEndpoints() {
    Deployment d = Manifests.one(Manifests.DIR.resolve("deployment.yaml"), Deployment.class);
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    PodSpec pod = d.getSpec().getTemplate().getSpec();
    assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
    assertThat(pod.getServiceAccountName()).isEqualTo("pier");
    // No PIER_SERVICE_HOST and the like from Services named pier-*: Pier would warn about them.
    assertThat(pod.getEnableServiceLinks()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    Container c = pod.getContainers().get(0);
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getPorts().get(0).getContainerPort()).isEqualTo(9080);
    assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(c.getResources().getLimits()).containsKey("memory");
    assertThat(c.getEnv()).extracting(EnvVar::getName).contains("POD_NAME", "HCLOUD_TOKEN");
    assertThat(c.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
  }

  @Test
  void theScaleOutAddOnServesTheDeploymentsPodsInItsNamespaceAndSaysHowToTurnItOn() {
    Path file = Manifests.DIR.resolve("scale-out.yaml");
    Deployment d = Manifests.one(Manifests.DIR.resolve("deployment.yaml"), Deployment.class);
    Map<String, String> podLabels = d.getSpec().getTemplate().getMetadata().getLabels();
    Service replicas = Manifests.one(file, Service.class);
    String name = replicas.getMetadata().getName();
    assertThat(replicas.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(replicas.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(replicas.getSpec().getSelector()).isEqualTo(podLabels);
    assertThat(replicas.getSpec().getPorts())
        .singleElement()
        .satisfies(p -> assertThat(p.getPort()).isEqualTo(5701));
    assertThat(Manifests.one(file, NetworkPolicy.class).getSpec().getPodSelector().getMatchLabels())
        .isEqualTo(podLabels);
    // Nothing cluster-wide, and only Leases: discovery asks the cluster's DNS, not the API.
    assertThat(Manifests.objects(file))
        .noneMatch(o -> o instanceof ClusterRole || o instanceof ClusterRoleBinding)
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo("pier"));
    assertThat(Manifests.one(file, Role.class).getRules())
        .singleElement()
        .satisfies(r -> assertThat(r.getResources()).containsExactly("leases"));
    assertThat(Manifests.one(file, RoleBinding.class).getSubjects())
        .singleElement()
        .satisfies(s -> assertThat(s.getName()).isEqualTo(pod(d).getServiceAccountName()));
    assertThat(Manifests.read(file))
        .contains(
            "scaleOut.enabled: true",
            "scaleOut.kubernetesService: " + name,
            "leaderElection.enabled: false",
            PierOptions.SCALE_OUT_HOST.envName(),
            "status.podIP",
            // The event bus's mutual TLS: how to make the Secret, and where Pier finds its files.
            "pier.jar scale-out-certs --out",
            "create secret generic pier-scale-out-tls",
            "scaleOut.tls.certFile: /etc/pier-scale-out-tls/tls.crt",
            "scaleOut.tls.keyFile: /etc/pier-scale-out-tls/tls.key",
            "scaleOut.tls.caFile: /etc/pier-scale-out-tls/ca.crt",
            "containerPort: " + ScaleOutOptions.DEFAULT_EVENT_BUS_PORT);
  }

  private static PodSpec pod(Deployment d) {
    return d.getSpec().getTemplate().getSpec();
  }
}
