package dev.pier.cli;

import dev.pier.kube.MemberKubeconfig;
import dev.pier.model.KubeCredentials;

/**
 * The self-contained kubeconfig {@code pier join} puts in a member Secret: the member's server and
 * CA inline and the minted token, which is exactly what {@link MemberKubeconfig} accepts.
 */
public final class JoinKubeconfig {
  private JoinKubeconfig() {}

  /**
   * @param caData base64 PEM, or empty for the JVM's trust store
   * @throws IllegalStateException when Pier would refuse the result
   */
  public static String build(String member, String server, String caData, String token) {
    StringBuilder y = new StringBuilder();
    y.append("apiVersion: v1\n")
        .append("kind: Config\n")
        .append("clusters:\n")
        .append("- name: ")
        .append(member)
        .append("\n  cluster:\n    server: ")
        .append(quote(server))
        .append('\n');
    if (!caData.isEmpty()) {
      y.append("    certificate-authority-data: ").append(caData).append('\n');
    }
    y.append("users:\n")
        .append("- name: pier-federation\n  user:\n    token: ")
        .append(quote(token))
        .append('\n')
        .append("contexts:\n")
        .append("- name: ")
        .append(member)
        .append("\n  context:\n    cluster: ")
        .append(member)
        .append("\n    user: pier-federation\n")
        .append("current-context: ")
        .append(member)
        .append('\n');
    String yaml = y.toString();
    try {
      MemberKubeconfig.parse(yaml, "");
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("the member kubeconfig would be refused: " + e.getMessage());
    }
    return yaml;
  }

  /** What a member Secret's kubeconfig says, or null when Pier would refuse it. */
  public static KubeCredentials read(String yaml) {
    try {
      return MemberKubeconfig.parse(yaml, "");
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
