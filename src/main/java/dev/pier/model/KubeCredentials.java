package dev.pier.model;

/**
 * How Pier reaches a member that joined through a Secret: the only things its kubeconfig may say.
 * Nothing here names a file, a program or a proxy, so a Secret can neither run code in Pier nor
 * read Pier's own files.
 *
 * @param server the API server's {@code https} URL
 * @param caData base64 PEM of the CA that signed the server's certificate; empty: the JVM's trust
 *     store
 * @param token a bearer token, or empty
 * @param clientCertData base64 PEM client certificate, or empty (then {@code token} is set)
 * @param clientKeyData base64 PEM client key, set exactly when {@code clientCertData} is
 */
public record KubeCredentials(
    String server, String caData, String token, String clientCertData, String clientKeyData) {

  /** Never prints a credential: records end up in log lines and exception messages. */
  @Override
  public String toString() {
    return "KubeCredentials[server="
        + server
        + ", ca="
        + (caData.isEmpty() ? "system" : "inline")
        + ", auth="
        + (token.isEmpty() ? "client certificate" : "token")
        + "]";
  }
}
