package dev.pier.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;

/**
 * A cluster the commands talk to, from a kubeconfig and context given by flags (none: {@code
 * $KUBECONFIG}, else {@code $HOME/.kube/config}, and its current context), with a deadline on every
 * request.
 */
public record KubeTarget(String role, Config config) {
  /** Every API call's deadline. */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** The flags that name the host cluster and the member Secrets' namespace there. */
  static final Set<String> HOST_FLAGS =
      Set.of("--host-kubeconfig", "--host-context", "--secret-namespace");

  /** The flags that name a member cluster. */
  static final Set<String> MEMBER_FLAGS = Set.of("--member-kubeconfig", "--member-context");

  /** The given sets of flag names as one. */
  @SafeVarargs
  static Set<String> flags(Set<String> first, Set<String>... more) {
    Set<String> out = new HashSet<>(first);
    for (Set<String> m : more) {
      out.addAll(m);
    }
    return Set.copyOf(out);
  }

  /**
   * @param role {@code host} or {@code member}: names the flags in errors
   */
  public static KubeTarget of(String role, String kubeconfig, String context) {
    String flag = "--" + role + "-kubeconfig";
    Config config;
    try {
      if (kubeconfig == null || kubeconfig.isEmpty()) {
        config = Config.autoConfigure(context == null || context.isEmpty() ? null : context);
      } else {
        File file = new File(kubeconfig);
        if (!file.canRead()) {
          throw CliException.usage("flag " + flag + ": cannot read '" + kubeconfig + "'");
        }
        config = Config.fromKubeconfig(context == null || context.isEmpty() ? null : context, file);
      }
    } catch (CliException e) {
      throw e;
    } catch (RuntimeException e) {
      throw CliException.usage(
          "flag "
              + flag
              + (context == null || context.isEmpty()
                  ? ""
                  : " / --" + role + "-context '" + context + "'")
              + ": "
              + e.getMessage());
    }
    if (config.getMasterUrl() == null || config.getMasterUrl().isEmpty()) {
      throw CliException.usage("flag " + flag + ": no server for the " + role + " cluster");
    }
    config.setRequestTimeout((int) REQUEST_TIMEOUT.toMillis());
    config.setConnectionTimeout((int) Duration.ofSeconds(10).toMillis());
    config.setRequestRetryBackoffLimit(1);
    return new KubeTarget(role, config);
  }

  public KubernetesClient client() {
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** The API server's URL, without a trailing slash. */
  public String server() {
    String url = config.getMasterUrl();
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  /**
   * The CA that signed the server's certificate, base64 PEM; empty when the kubeconfig has none.
   */
  public String caData() {
    if (config.getCaCertData() != null && !config.getCaCertData().isBlank()) {
      return config.getCaCertData().trim();
    }
    String file = config.getCaCertFile();
    if (file == null || file.isBlank()) {
      return "";
    }
    try {
      return Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(file)));
    } catch (IOException e) {
      throw CliException.failed(
          "the " + role + " kubeconfig's certificate-authority '" + file + "': " + e.getMessage());
    }
  }
}
