package dev.pier.federation;

import io.fabric8.kubernetes.api.model.Service;
import java.util.Collection;
import java.util.function.Predicate;

/**
 * Which host Services this federation takes, and where each goes: the rules both sides of a run
 * share (the host's aggregate and a member's copy), over the options and the namespaces labelled
 * into the federation.
 */
public final class FederationScope {
  private final FederationOptions options;
  private final Predicate<String> labelledNamespace;

  /**
   * @param labelledNamespace whether a host namespace is labelled into the federation (read from a
   *     cache, never from the API server)
   */
  public FederationScope(FederationOptions options, Predicate<String> labelledNamespace) {
    this.options = options;
    // With memberScope namespaces the members' Roles are per listed namespace: a label is not
    // enough to reach them.
    this.labelledNamespace = options.namespacedMembers() ? ns -> false : labelledNamespace;
  }

  /** Whether the host Service asks to be federated. */
  public boolean federated(Service svc) {
    return svc != null && Federated.isFederated(svc, options.namespaces());
  }

  /** Whether the Service's namespace is opted in (or opt-in is off). */
  public boolean allowed(Service svc) {
    return Federated.allowedFrom(
        svc.getMetadata().getNamespace(),
        options.namespaceOptIn(),
        options.namespaces(),
        labelledNamespace);
  }

  /**
   * Federation asked for in a namespace not opted in: nothing is created, changed or deleted for it
   * (copies made before stay as they are), and the Service says why.
   */
  public boolean refused(Service hostSvc) {
    return hostSvc != null
        && federated(hostSvc)
        && hostSvc.getMetadata().getDeletionTimestamp() == null
        && !allowed(hostSvc);
  }

  /**
   * Whether the member is to have a copy of the host Service: federated, not being deleted, the
   * member not leaving, and placed there.
   */
  public boolean wanted(
      Service hostSvc, String member, boolean leaving, Collection<MemberInfo> members) {
    if (!federated(hostSvc) || hostSvc.getMetadata().getDeletionTimestamp() != null || leaving) {
      return false;
    }
    return Placement.of(hostSvc, members).clusters().contains(member);
  }
}
