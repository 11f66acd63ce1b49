package dev.pier.federation;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/** What a host Service asks of federation. */
public final class Federated {
  private Federated() {}

  /**
   * True when the Service carries {@code pier.dev/federated: "true"} (any case) or sits in one of
   * the namespaces federated as a whole.
   */
  public static boolean isFederated(Service host, Set<String> federatedNamespaces) {
    ObjectMeta m = host.getMetadata();
    if (m == null) {
      return false;
    }
    if ("true".equalsIgnoreCase(trimmed(annotations(m).get(FederationKeys.FEDERATED_ANNOTATION)))) {
      return true;
    }
    return federatedNamespaces != null
        && m.getNamespace() != null
        && federatedNamespaces.contains(m.getNamespace());
  }

  /**
   * Whether Services of {@code namespace} may reach the members: with opt-in on, only from a
   * namespace listed in {@code federation.namespaces} or labelled for the federation.
   */
  public static boolean allowedFrom(
      String namespace, boolean optIn, Set<String> listed, Predicate<String> labelled) {
    return !optIn || listed.contains(namespace) || labelled.test(namespace);
  }

  /**
   * True when deleting the host Service leaves its member copies: {@code pier.dev/delete-policy:
   * orphan} (any case), or the {@code orphan} finalizer a deletion with {@code
   * propagationPolicy=Orphan} puts on it.
   */
  public static boolean orphanOnDelete(Service host) {
    ObjectMeta m = host.getMetadata();
    if (m == null) {
      return false;
    }
    return "orphan"
            .equalsIgnoreCase(trimmed(annotations(m).get(FederationKeys.DELETE_POLICY_ANNOTATION)))
        || finalizers(m).contains(FederationKeys.ORPHAN_FINALIZER);
  }

  public static boolean hasFinalizer(Service host) {
    ObjectMeta m = host.getMetadata();
    return m != null && finalizers(m).contains(FederationKeys.FINALIZER);
  }

  private static Map<String, String> annotations(ObjectMeta m) {
    return m.getAnnotations() == null ? Map.of() : m.getAnnotations();
  }

  private static List<String> finalizers(ObjectMeta m) {
    return m.getFinalizers() == null ? List.of() : m.getFinalizers();
  }

  private static String trimmed(String s) {
    return s == null ? null : s.trim();
  }
}
