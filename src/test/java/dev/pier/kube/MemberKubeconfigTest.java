package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.model.KubeCredentials;
import io.fabric8.kubernetes.client.Config;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MemberKubeconfigTest {
  private static final String SECRET = "s3cr3t-value-never-printed";
  private static final String CA = "Q0EtREFUQQ==";

  /** A kubeconfig whose cluster and user carry the given extra lines (indented by the caller). */
  private static String kubeconfig(String server, String clusterExtra, String user) {
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "preferences: {}\n"
        + "clusters:\n"
        + "- name: west\n"
        + "  cluster:\n"
        + "    server: "
        + server
        + "\n"
        + "    certificate-authority-data: "
        + CA
        + "\n"
        + clusterExtra
        + "users:\n"
        + "- name: pier\n"
        + "  user:\n"
        + user
        + "contexts:\n"
        + "- name: west\n"
        + "  context:\n"
        + "    cluster: west\n"
        + "    user: pier\n"
        + "    namespace: default\n"
        + "current-context: west\n";
  }

  private static String tokenUser() {
    return "    token: " + SECRET + "\n";
  }

  @Test
  void aTokenKubeconfigGivesItsServerCaAndToken() {
    KubeCredentials c =
        MemberKubeconfig.parse(kubeconfig("https://west.example:6443", "", tokenUser()), "");
    assertThat(c).isEqualTo(new KubeCredentials("https://west.example:6443", CA, SECRET, "", ""));
    assertThat(c.toString()).doesNotContain(SECRET).contains("https://west.example:6443");
  }

  @Test
  void aClientCertificateKubeconfigGivesCertificateAndKey() {
    KubeCredentials c =
        MemberKubeconfig.parse(
            kubeconfig(
                "https://west.example",
                "",
                "    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n"),
            "");
    assertThat(c.clientCertData()).isEqualTo("Q0VSVA==");
    assertThat(c.clientKeyData()).isEqualTo("S0VZ");
    assertThat(c.token()).isEmpty();
  }

  @Test
  void extensionsAreInertAndAccepted() {
    String withExtensions =
        kubeconfig(
                "https://west.example",
                "    extensions:\n    - name: cluster_info\n      extension: {provider: minikube}\n",
                tokenUser())
            + "extensions: []\n";
    assertThat(MemberKubeconfig.parse(withExtensions, "").server())
        .isEqualTo("https://west.example");
  }

  @Test
  void theNamedContextWinsOverTheCurrentOne() {
    String two =
        kubeconfig("https://west.example", "", tokenUser())
            .replace(
                "contexts:\n",
                "contexts:\n- name: other\n  context:\n    cluster: nowhere\n    user: pier\n");
    assertThat(MemberKubeconfig.parse(two, "west").server()).isEqualTo("https://west.example");
    assertThatThrownBy(() -> MemberKubeconfig.parse(two, "other"))
        .hasMessage("clusters: no entry named 'nowhere'");
  }

  static Stream<Arguments> userFields() {
    return Stream.of(
        Arguments.of(
            "users[0].user.exec",
            "    exec:\n      command: sh\n      args: [\"-c\", \"touch x\"]\n"),
        Arguments.of("users[0].user.auth-provider", "    auth-provider:\n      name: oidc\n"),
        Arguments.of("users[0].user.tokenFile", "    tokenFile: /var/run/secrets/token\n"),
        Arguments.of("users[0].user.client-certificate", "    client-certificate: /etc/pier/c\n"),
        Arguments.of("users[0].user.client-key", "    client-key: /etc/pier/k\n"),
        Arguments.of("users[0].user.username", "    username: admin\n"),
        Arguments.of("users[0].user.password", "    password: hunter2\n"),
        Arguments.of("users[0].user.as", "    as: system:admin\n"));
  }

  @ParameterizedTest
  @MethodSource("userFields")
  void everyOtherWayToAuthenticateIsRefusedByName(String field, String lines) {
    assertThatThrownBy(
            () ->
                MemberKubeconfig.parse(
                    kubeconfig("https://west.example", "", tokenUser() + lines), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(field + ": not allowed in a member kubeconfig")
        .message()
        .doesNotContain(SECRET)
        .doesNotContain("touch")
        .doesNotContain("/etc/pier")
        .doesNotContain("hunter2");
  }

  static Stream<Arguments> clusterFields() {
    return Stream.of(
        Arguments.of(
            "clusters[0].cluster.certificate-authority",
            "    certificate-authority: /etc/ca.crt\n"),
        Arguments.of(
            "clusters[0].cluster.insecure-skip-tls-verify", "    insecure-skip-tls-verify: true\n"),
        Arguments.of("clusters[0].cluster.proxy-url", "    proxy-url: http://proxy.example:3128\n"),
        Arguments.of("clusters[0].cluster.tls-server-name", "    tls-server-name: other\n"));
  }

  @ParameterizedTest
  @MethodSource("clusterFields")
  void clusterFieldsThatReachBeyondTheMemberAreRefusedByName(String field, String lines) {
    assertThatThrownBy(
            () ->
                MemberKubeconfig.parse(kubeconfig("https://west.example", lines, tokenUser()), ""))
        .hasMessageStartingWith(field + ": not allowed in a member kubeconfig")
        .message()
        .doesNotContain("/etc/ca.crt")
        .doesNotContain("proxy.example");
  }

  @Test
  void onlyAnHttpsServerIsAccepted() {
    assertThatThrownBy(
            () -> MemberKubeconfig.parse(kubeconfig("http://west.example", "", tokenUser()), ""))
        .hasMessage("clusters[0].cluster.server: must be an https URL");
    assertThatThrownBy(
            () ->
                MemberKubeconfig.parse(
                    kubeconfig("https://admin:pw@west.example", "", tokenUser()), ""))
        .hasMessage(
            "clusters[0].cluster.server: must not carry user information, a query or a fragment");
  }

  @Test
  void credentialsMustBeComplete() {
    assertThatThrownBy(
            () ->
                MemberKubeconfig.parse(
                    kubeconfig("https://west.example", "", "    client-key-data: S0VZ\n"), ""))
        .hasMessage(
            "users[0].user: client-certificate-data and client-key-data must be given together");
    assertThatThrownBy(
            () -> MemberKubeconfig.parse(kubeconfig("https://west.example", "", "    {}\n"), ""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSyntaxErrorNamesTheLineButNeverQuotesIt() {
    String broken = "users:\n- name: pier\n  user:\n    token: \"" + SECRET + "\n  bad: [\n";
    assertThatThrownBy(() -> MemberKubeconfig.parse(broken, ""))
        .hasMessageStartingWith("not a valid YAML document (line ")
        .message()
        .doesNotContain(SECRET);
  }

  @Test
  void fabric8GetsOnlyTheCredentialsAndNeverConfiguresItself() {
    Config config =
        KubeClients.config(new KubeCredentials("https://west.example:6443", CA, SECRET, "", ""));
    assertThat(config.getMasterUrl()).startsWith("https://west.example:6443");
    assertThat(config.getOauthToken()).isEqualTo(SECRET);
    assertThat(config.getCaCertData()).isEqualTo(CA);
    assertThat(config.getAutoConfigure()).isFalse();
    assertThat(config.getFile()).isNull();
    assertThat(config.getCaCertFile()).isNull();
    assertThat(config.getAuthProvider()).isNull();
    assertThat(config.getHttpProxy()).isNull();
    assertThat(config.isTrustCerts()).isFalse();
    assertThat(config.refresh()).isSameAs(config);
  }
}
