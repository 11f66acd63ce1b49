package dev.pier.boot;

import dev.pier.config.Durations;
import dev.pier.config.Option;
import java.time.Duration;

/** The {@code --help} text: usage, then every option of {@link PierOptions} with its default. */
public final class Usage {
  private Usage() {}

  public static String text() {
    StringBuilder out =
        new StringBuilder(
            """
            Usage: java -jar pier.jar [--config FILE] [--help] [--version]

            Pier gives Kubernetes Services of type LoadBalancer real load balancers.

              -c, --config FILE  read options from a YAML file (see conf/pier.yaml)
              -h, --help         print this help
              -v, --version      print the version and git revision

            Federation commands (also as the kubectl plugin: kubectl pier ...), each with --help:
              java -jar pier.jar join NAME     make a cluster a federation member
              java -jar pier.jar unjoin NAME   make a member leave
              java -jar pier.jar status        the members and federated Services

            Scale-out: java -jar pier.jar scale-out-certs --out DIR   the event bus's TLS files

            Every option can also be set with an environment variable, which overrides the file.
            Options (environment variable, default):
            """);
    for (Option<?> o : PierOptions.ALL) {
      out.append("  ")
          .append(o.path())
          .append(" (")
          .append(o.envName())
          .append(", ")
          .append(display(o.defaultValue()))
          .append(")\n      ")
          .append(o.description())
          .append('\n');
    }
    out.append(CLUSTERS);
    out.append("\nOther environment variables:\n");
    EnvironmentVariables.OWN.forEach(
        (name, doc) -> out.append("  ").append(name).append("\n      ").append(doc).append('\n'));
    EnvironmentVariables.OTHERS.forEach(
        (name, doc) -> out.append("  ").append(name).append("\n      ").append(doc).append('\n'));
    out.append(ENVIRONMENT);
    return out.toString();
  }

  private static final String CLUSTERS =
      """

      Clusters:
        One cluster is given by the cluster section; several by the items of clusters, each
        a mapping with these fields (then leave the cluster section out):
          name           a DNS label, unique among the clusters (required)
          kubeconfig     kubeconfig file ("": KUBECONFIG, else ~/.kube/config)
          context        its context ("": current)
          inCluster      true: the pod's service account (not together with kubeconfig)
          region         region override ("": from the cluster's nodes)
          zones          zone overrides ([]: from the cluster's nodes)
          loadBalancers  run Pier's load-balancer controller there (default true)
          federation     host (federated Services are declared there; at most one), member
                         (gets copies of them; needs a host) or none (default)
          labels         label keys and values that placement selects on
          provider, local, hetzner, webhook, benchmark
                         the cluster's own provider options, written as at the top level
                         (local: {pools: [...]}); unset ones keep the top-level value
        PIER_CLUSTERS_<NAME>_<FIELD> overrides a field of a cluster listed in the file: NAME is
        its name in upper case with '-' as '_', FIELD the field's path in upper snake case, e.g.
        PIER_CLUSTERS_EAST_KUBECONFIG, PIER_CLUSTERS_EAST_ZONES (comma-separated),
        PIER_CLUSTERS_EAST_LOAD_BALANCERS, PIER_CLUSTERS_EAST_LABELS (key=value,...),
        PIER_CLUSTERS_EAST_LOCAL_POOLS. Values: the top-level options, the cluster's provider
        sections over them, its variables over those.
      """;

  private static final String ENVIRONMENT =
      """
        A PIER_* variable that is none of the above, nor a field of a cluster in clusters, is
        logged as a warning at startup (config.strictEnvironment: true, or
        PIER_CONFIG_STRICT_ENVIRONMENT=true: a configuration error instead). Not warned about:
        the variables that hetzner.tokenEnv and dns.powerdns.apiKeyEnv name, and the service
        links a kubelet injects for Services named pier or pier-* (PIER_SERVICE_HOST,
        PIER_SERVICE_PORT, PIER_SERVICE_PORT_<NAME>, PIER_PORT, PIER_PORT_<n>_<PROTO>, ...);
        k8s/deployment.yaml turns service links off with enableServiceLinks: false.
      """;

  /** A default as users write it: durations as 5s or 2m. */
  public static String display(Object value) {
    if (value instanceof Duration d) {
      return Durations.format(d);
    }
    if (value instanceof Double d) {
      return Option.number(d);
    }
    if (value instanceof String s && s.isEmpty()) {
      return "\"\"";
    }
    return String.valueOf(value);
  }
}
