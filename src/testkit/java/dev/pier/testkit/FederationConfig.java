package dev.pier.testkit;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Pier config file for a federation, as the tests and benchmarks write it: the {@code clusters}
 * list (the host, named {@code host}, first, then the members), the {@code federation} section and
 * any other top-level sections. The cluster settings ({@link #loadBalancers}, {@link #pool}, {@link
 * #labels}, {@link #clusterYaml}) apply to the cluster added last, in the order they are called:
 *
 * <pre>{@code
 * String yaml =
 *     FederationConfig.host(host.kubeconfigPath())
 *         .loadBalancers(false)
 *         .member("east", east.kubeconfigPath())
 *         .pool("127.241.5.0/28")
 *         .health("500ms", "400ms")
 *         .yaml();
 * }</pre>
 */
public final class FederationConfig {
  private final StringBuilder clusters = new StringBuilder("clusters:\n");
  private final StringBuilder federation = new StringBuilder();
  private final StringBuilder health = new StringBuilder();
  private final StringBuilder extra = new StringBuilder();

  private FederationConfig() {}

  /** A config whose first cluster is the host, {@code host}, reached through {@code kubeconfig}. */
  public static FederationConfig host(Path kubeconfig) {
    return new FederationConfig().cluster("host", kubeconfig, "host");
  }

  /** Adds the member {@code name}, reached through {@code kubeconfig}. */
  public FederationConfig member(String name, Path kubeconfig) {
    return cluster(name, kubeconfig, "member");
  }

  private FederationConfig cluster(String name, Path kubeconfig, String role) {
    clusters
        .append("  - name: ")
        .append(name)
        .append("\n    kubeconfig: \"")
        .append(kubeconfig)
        .append("\"\n    federation: ")
        .append(role)
        .append('\n');
    return this;
  }

  /** Whether the cluster added last runs load balancers ({@code loadBalancers}). */
  public FederationConfig loadBalancers(boolean enabled) {
    return clusterYaml("    loadBalancers: " + enabled + "\n");
  }

  /** The local provider's one address pool in the cluster added last ({@code local.pools}). */
  public FederationConfig pool(String cidr) {
    return clusterYaml("    local:\n      pools: [\"" + cidr + "\"]\n");
  }

  /** The labels of the cluster added last. */
  public FederationConfig labels(Map<String, String> labels) {
    return clusterYaml(
        labels.entrySet().stream()
            .map(e -> e.getKey() + ": " + e.getValue())
            .collect(Collectors.joining(", ", "    labels: {", "}\n")));
  }

  /** More lines of the cluster added last, verbatim: each indented by four spaces. */
  public FederationConfig clusterYaml(String lines) {
    clusters.append(lines);
    return this;
  }

  /** {@code federation.leaveGrace}. */
  public FederationConfig leaveGrace(String duration) {
    return federationYaml("  leaveGrace: " + duration + "\n");
  }

  /** {@code federation.secretNamespace}. */
  public FederationConfig secretNamespace(String namespace) {
    return federationYaml("  secretNamespace: " + namespace + "\n");
  }

  /** {@code federation.health.period}: how often the members are probed. */
  public FederationConfig health(String period) {
    health.append("    period: ").append(period).append('\n');
    return this;
  }

  /** {@code federation.health}: the probe period and each probe's timeout. */
  public FederationConfig health(String period, String timeout) {
    health(period);
    health.append("    timeout: ").append(timeout).append('\n');
    return this;
  }

  /** {@code federation.health}: as {@link #health(String, String)}, with its failureThreshold. */
  public FederationConfig health(String period, String timeout, int failureThreshold) {
    health(period, timeout);
    health.append("    failureThreshold: ").append(failureThreshold).append('\n');
    return this;
  }

  /** More lines of the {@code federation} section, verbatim: each indented by two spaces. */
  public FederationConfig federationYaml(String lines) {
    federation.append(lines);
    return this;
  }

  /** Top-level sections besides {@code clusters} and {@code federation}, verbatim. */
  public FederationConfig topLevelYaml(String sections) {
    extra.append(sections);
    return this;
  }

  /** The config file's text. */
  public String yaml() {
    StringBuilder yaml = new StringBuilder(clusters);
    if (!federation.isEmpty() || !health.isEmpty()) {
      yaml.append("federation:\n").append(federation);
      if (!health.isEmpty()) {
        yaml.append("  health:\n").append(health);
      }
    }
    return yaml.append(extra).toString();
  }

  @Override
  public String toString() {
    return yaml();
  }
}
