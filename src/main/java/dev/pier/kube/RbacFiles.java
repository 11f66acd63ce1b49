package dev.pier.kube;

/**
 * The shipped RBAC manifests, one per mode, that a startup error about a missing permission points
 * to: the base every cluster with Pier's load balancers needs, and the add-ons of DNS publishing
 * and of the federation's host and members.
 */
public final class RbacFiles {
  /** Services, Nodes, Events, kube-system and the Lease: the load-balancer controller. */
  public static final String BASE = "k8s/rbac.yaml";

  /** Endpoints list and watch: DNS publishing, on top of the base. */
  public static final String DNS = "k8s/rbac-dns.yaml";

  /** The member Secrets in the host, on top of the base. */
  public static final String FEDERATION_HOST = "k8s/rbac-federation-host.yaml";

  /** Everything Pier calls in a federation member. */
  public static final String FEDERATION_MEMBER = "k8s/rbac-federation-member.yaml";

  /** A federation member read and written only in the listed namespaces, a Role in each. */
  public static final String FEDERATION_MEMBER_NAMESPACED =
      "k8s/rbac-federation-member-namespaced.yaml";

  private RbacFiles() {}
}
