package dev.pier.model;

import java.util.List;
import java.util.Map;

/**
 * One cluster as configured (an item of {@code clusters:}, the single {@code cluster:} section, or
 * a member joined through a Secret).
 *
 * @param name a DNS label, unique among the clusters
 * @param kubeconfig a kubeconfig file; empty with {@code inCluster} or for fabric8's defaults
 * @param credentials what a member joined through a Secret connects with (its checked kubeconfig),
 *     else null
 * @param context the kubeconfig context; empty: current
 * @param inCluster use the pod's service account
 * @param region the region override; empty: read from the cluster's nodes
 * @param zones the zones override; empty: read from the cluster's nodes
 * @param loadBalancers run Pier's load-balancer controller there
 * @param federation the cluster's role in the federation
 * @param labels free-form labels that placement selects on
 * @param provider the provider of a member joined through a Secret that runs Pier's load balancers
 *     ({@code loadBalancers} is then true), else null: configured clusters take theirs from the
 *     configuration
 */
public record ClusterSpec(
    String name,
    String kubeconfig,
    KubeCredentials credentials,
    String context,
    boolean inCluster,
    String region,
    List<String> zones,
    boolean loadBalancers,
    FederationRole federation,
    Map<String, String> labels,
    MemberProvider provider) {

  public ClusterSpec {
    zones = List.copyOf(zones);
    labels = Map.copyOf(labels);
  }

  public ClusterSpec(
      String name,
      String kubeconfig,
      KubeCredentials credentials,
      String context,
      boolean inCluster,
      String region,
      List<String> zones,
      boolean loadBalancers,
      FederationRole federation,
      Map<String, String> labels) {
    this(
        name,
        kubeconfig,
        credentials,
        context,
        inCluster,
        region,
        zones,
        loadBalancers,
        federation,
        labels,
        null);
  }

  /** The single {@code cluster:} section: load balancers on, no federation. */
  public static ClusterSpec single(String name, String kubeconfig, String context) {
    return new ClusterSpec(
        name, kubeconfig, null, context, false, "", List.of(), true, FederationRole.NONE, Map.of());
  }
}
