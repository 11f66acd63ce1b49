package dev.pier.federation.members;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.kube.KubeClients;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import dev.pier.model.KubeCredentials;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemberSecretsTest {
  private static final String KUBECONFIG =
      """
      apiVersion: v1
      kind: Config
      clusters:
      - name: west
        cluster:
          server: https://west.example:6443
      users:
      - name: pier
        user:
          token: t0ken
      contexts:
      - name: west
        context: {cluster: west, user: pier}
      current-context: west
      """;

  @TempDir Path tmp;

  private static Secret secret(
      Map<String, String> labels, Map<String, String> annotations, String kubeconfig) {
    SecretBuilder b =
        new SecretBuilder()
            .withNewMetadata()
            .withNamespace("pier")
            .withName("member")
            .withLabels(labels)
            .withAnnotations(annotations)
            .endMetadata();
    if (kubeconfig != null) {
      b.withData(
          new java.util.HashMap<>(
              Map.of(
                  "kubeconfig",
                  Base64.getEncoder()
                      .encodeToString(kubeconfig.getBytes(StandardCharsets.UTF_8)))));
    }
    return b.build();
  }

  @Test
  void aSecretDescribesAMemberWithItsKubeconfigTopologyAndPlacementLabels() {
    ClusterSpec spec =
        MemberSecrets.spec(
            secret(
                Map.of("pier.dev/cluster", "west", "tier", "silver"),
                Map.of("pier.dev/region", "us", "pier.dev/zones", "us-a, us-b"),
                KUBECONFIG));
    assertThat(spec.name()).isEqualTo("west");
    assertThat(spec.credentials())
        .isEqualTo(new KubeCredentials("https://west.example:6443", "", "t0ken", "", ""));
    assertThat(spec.region()).isEqualTo("us");
    assertThat(spec.zones()).isEqualTo(List.of("us-a", "us-b"));
    assertThat(spec.labels()).isEqualTo(Map.of("tier", "silver"));
    assertThat(spec.federation()).isEqualTo(FederationRole.MEMBER);
    assertThat(spec.loadBalancers()).isFalse();
  }

  @Test
  void aBadSecretIsRefusedNamingTheFieldAndValue() {
    assertThatThrownBy(
            () ->
                MemberSecrets.spec(
                    secret(Map.of("pier.dev/cluster", "West_1"), Map.of(), KUBECONFIG)))
        .hasMessage(
            "label pier.dev/cluster: invalid value 'West_1': must be a DNS label (lower case"
                + " letters, digits, '-')");
    assertThatThrownBy(
            () -> MemberSecrets.spec(secret(Map.of("pier.dev/cluster", "west"), Map.of(), null)))
        .hasMessage("data.kubeconfig: missing; it must hold a self-contained kubeconfig");
  }

  @Test
  void aSecretNamesTheProviderOfPiersLoadBalancersInTheMemberAndItsTokenStaysUnprinted() {
    Secret withProvider =
        secret(
            Map.of("pier.dev/cluster", "west"),
            Map.of(
                MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION,
                "{\"provider\": \"hetzner\", \"hetzner.location\": \"fsn1\","
                    + " \"hetzner.healthCheck.retries\": 3, \"hetzner.usePrivateIp\": true}"),
            KUBECONFIG);
    withProvider.getData().put(MemberSecrets.PROVIDER_TOKEN_KEY, base64("s3cret-token\n"));
    ClusterSpec spec = MemberSecrets.spec(withProvider);
    assertThat(spec.loadBalancers()).isTrue();
    assertThat(spec.provider().name()).isEqualTo("hetzner");
    assertThat(spec.provider().settings())
        .containsEntry("hetzner.location", "fsn1")
        .containsEntry("hetzner.healthCheck.retries", "3")
        .containsEntry("hetzner.usePrivateIp", "true");
    assertThat(spec.provider().token()).isEqualTo("s3cret-token");
    assertThat(spec.toString()).doesNotContain("s3cret-token");
  }

  @Test
  void aBadProviderAnnotationOrALoneTokenIsRefusedNamingTheField() {
    Map<String, String> labels = Map.of("pier.dev/cluster", "west");
    String annotation = MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION;
    assertThatThrownBy(
            () -> MemberSecrets.spec(secret(labels, Map.of(annotation, "hetzner"), KUBECONFIG)))
        .hasMessageStartingWith("annotation " + annotation + ": not a JSON object");
    assertThatThrownBy(
            () ->
                MemberSecrets.spec(
                    secret(
                        labels,
                        Map.of(annotation, "{\"hetzner.location\": \"fsn1\"}"),
                        KUBECONFIG)))
        .hasMessage("annotation " + annotation + ": names no provider (the key 'provider')");
    assertThatThrownBy(
            () ->
                MemberSecrets.spec(
                    secret(
                        labels,
                        Map.of(
                            annotation, "{\"provider\": \"webhook\", \"webhook\": {\"url\": 1}}"),
                        KUBECONFIG)))
        .hasMessage(
            "annotation "
                + annotation
                + ": the value of 'webhook' must be a string, a number or a boolean");
    Secret loneToken = secret(labels, Map.of(), KUBECONFIG);
    loneToken.getData().put(MemberSecrets.PROVIDER_TOKEN_KEY, base64("s3cret-token"));
    assertThatThrownBy(() -> MemberSecrets.spec(loneToken))
        .hasMessageStartingWith("data.provider-token: set without the annotation " + annotation)
        .hasMessageNotContaining("s3cret-token");
  }

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The critical hole: a Secret whose kubeconfig holds an exec credential plugin must not run it.
   * fabric8 runs such a plugin as soon as it reads the kubeconfig; Pier must refuse the Secret
   * before any client is built, naming the field and never quoting the command.
   */
  @Test
  void anExecPluginInAMemberSecretNeverRuns() {
    Path ran = tmp.resolve("plugin-ran");
    String credential =
        "{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1beta1\\\","
            + "\\\"kind\\\":\\\"ExecCredential\\\","
            + "\\\"status\\\":{\\\"token\\\":\\\"t\\\"}}";
    String kubeconfig =
        KUBECONFIG.replace(
            "    token: t0ken\n",
            "    exec:\n"
                + "      apiVersion: client.authentication.k8s.io/v1beta1\n"
                + "      command: sh\n"
                + "      args: [\"-c\", \"touch "
                + ran
                + "; echo "
                + credential
                + "\"]\n");
    Vertx vertx = Vertx.vertx();
    String refusal = null;
    try {
      ClusterSpec spec =
          MemberSecrets.spec(secret(Map.of("pier.dev/cluster", "west"), Map.of(), kubeconfig));
      KubeClients.create(vertx, spec).close();
    } catch (RuntimeException e) {
      refusal = e.getMessage();
    } finally {
      vertx.close().await();
    }
    assertThat(ran).doesNotExist();
    assertThat(refusal)
        .startsWith("data.kubeconfig: users[0].user.exec: not allowed in a member kubeconfig")
        .doesNotContain("touch")
        .doesNotContain(tmp.toString());
  }
}
