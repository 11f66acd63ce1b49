package dev.pier.federation;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceSpecBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** The member copies of a host Service: whose they are, what to create, what to update. */
public final class MemberServices {
  private MemberServices() {}

  /** Who a member Service belongs to, as far as this federation can tell. */
  public enum Ownership {
    /** There is no member Service. */
    ABSENT,
    /** This federation's copy from this host cluster: Pier may change or delete it. */
    OWNED,
    /** Someone else's: never changed or deleted. */
    FOREIGN
  }

  private static final Set<String> HOST_ONLY_KEYS =
      Set.of(
          FederationKeys.FEDERATED_ANNOTATION,
          FederationKeys.CLUSTERS_ANNOTATION,
          FederationKeys.CLUSTER_SELECTOR_ANNOTATION,
          FederationKeys.DELETE_POLICY_ANNOTATION,
          FederationKeys.COPIED_KEYS_ANNOTATION,
          "kubectl.kubernetes.io/last-applied-configuration");
  private static final String FEDERATION_PREFIX = "federation.kubernetes.io/";
  private static final String HEADLESS = "None";

  /**
   * {@link Ownership#OWNED} when the member Service carries this federation's label and the host
   * cluster's uid. The host Service's uid does not count: a host Service deleted with its copies
   * orphaned and then created again adopts them.
   */
  public static Ownership ownership(Service member, String federation, String hostClusterUid) {
    if (member == null) {
      return Ownership.ABSENT;
    }
    ObjectMeta m = member.getMetadata();
    if (m == null) {
      return Ownership.FOREIGN;
    }
    String label =
        m.getLabels() == null ? null : m.getLabels().get(FederationKeys.FEDERATION_LABEL);
    String cluster =
        m.getAnnotations() == null
            ? null
            : m.getAnnotations().get(FederationKeys.HOST_CLUSTER_UID_ANNOTATION);
    return federation.equals(label) && hostClusterUid.equals(cluster)
        ? Ownership.OWNED
        : Ownership.FOREIGN;
  }

  /**
   * The member copy to create. Labels and annotations are the host's without federation's own
   * instructions ({@code pier.dev/federated|clusters|cluster-selector|delete-policy}, every {@code
   * federation.kubernetes.io/} key, kubectl's last-applied configuration), plus Pier's marks. The
   * spec is the host's without what each cluster allocates or defaults for itself: clusterIP(s),
   * nodePorts, healthCheckNodePort, ipFamilies, ipFamilyPolicy; and never with {@code externalIPs}.
   * A headless Service's {@code clusterIP: None} is the user's choice, not an allocation, and
   * stays.
   */
  public static Service desired(
      Service host, String federation, String hostClusterUid, String hostServiceUid) {
    ObjectMeta h = host.getMetadata();
    Map<String, String> labels = copyable(h.getLabels());
    Map<String, String> annotations = copyable(h.getAnnotations());
    annotations.put(
        FederationKeys.COPIED_KEYS_ANNOTATION,
        CopiedKeys.encode(labels.keySet(), annotations.keySet()));
    labels.put(FederationKeys.FEDERATION_LABEL, federation);
    annotations.put(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, hostClusterUid);
    annotations.put(FederationKeys.HOST_SERVICE_UID_ANNOTATION, hostServiceUid);
    ServiceSpec spec =
        host.getSpec() == null ? new ServiceSpec() : new ServiceSpecBuilder(host.getSpec()).build();
    boolean headless = HEADLESS.equals(spec.getClusterIP());
    if (!headless) {
      spec.setClusterIP(null);
      spec.setClusterIPs(null);
    } else {
      spec.setClusterIPs(new ArrayList<>(List.of(HEADLESS)));
    }
    if (spec.getPorts() != null) {
      spec.getPorts().forEach(p -> p.setNodePort(null));
    }
    spec.setHealthCheckNodePort(null);
    spec.setIpFamilies(null);
    spec.setIpFamilyPolicy(null);
    // Never propagated: with the member's rights, a host user's externalIPs would intercept
    // traffic to any address in every member (CVE-2020-8554).
    // Empty, not null: the API server omits an empty list, which reads back as an empty one.
    spec.setExternalIPs(new ArrayList<>());
    return new ServiceBuilder()
        .withApiVersion("v1")
        .withKind("Service")
        .withNewMetadata()
        .withNamespace(h.getNamespace())
        .withName(h.getName())
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .withSpec(spec)
        .build();
  }

  /**
   * What to write over an existing, owned member Service so that it matches {@code desired}, or
   * null when it already does. The write keeps the member's metadata (uid, resourceVersion,
   * finalizers, ...) and every label and annotation Pier did not copy there (another controller's:
   * Pier never fights over them), with desired's labels and annotations over them and those Pier
   * copied before and the host dropped removed; and desired's spec with what the member allocated
   * for itself: clusterIP(s), nodePorts (matched by port and protocol, whatever the name),
   * healthCheckNodePort, ipFamilies, ipFamilyPolicy.
   *
   * <p>Like the seed's {@code Equivalent} this compares what users write, not bytes: a field
   * desired leaves unset that the member holds at its API server's default (type ClusterIP,
   * sessionAffinity None, a port's protocol TCP, ...) counts as equal, since writing it unset would
   * default it the same way.
   */
  public static Service update(Service desired, Service existing) {
    ServiceSpec want = new ServiceSpecBuilder(desired.getSpec()).build();
    ServiceSpec have = existing.getSpec() == null ? new ServiceSpec() : existing.getSpec();
    keepAllocated(want, have);
    keepDefaults(want, have);
    ObjectMeta em = existing.getMetadata();
    ObjectMeta dm = desired.getMetadata();
    CopiedKeys before = CopiedKeys.of(orEmpty(em.getAnnotations()));
    Map<String, String> labels =
        merged(orEmpty(em.getLabels()), orEmpty(dm.getLabels()), before.labels());
    Map<String, String> annotations =
        merged(orEmpty(em.getAnnotations()), orEmpty(dm.getAnnotations()), before.annotations());
    boolean same =
        Objects.equals(em.getName(), dm.getName())
            && Objects.equals(em.getNamespace(), dm.getNamespace())
            && orEmpty(em.getLabels()).equals(labels)
            && orEmpty(em.getAnnotations()).equals(annotations)
            && want.equals(have);
    if (same) {
      return null;
    }
    ObjectMeta meta =
        new ObjectMetaBuilder(em).withLabels(labels).withAnnotations(annotations).build();
    meta.setManagedFields(null);
    return new ServiceBuilder(existing).withMetadata(meta).withSpec(want).build();
  }

  private static void keepAllocated(ServiceSpec want, ServiceSpec have) {
    boolean externalName = "ExternalName".equals(want.getType());
    if (!externalName && want.getClusterIP() == null) {
      want.setClusterIP(have.getClusterIP());
      if (want.getClusterIPs() == null) {
        want.setClusterIPs(
            have.getClusterIPs() == null ? null : new ArrayList<>(have.getClusterIPs()));
      }
    }
    if (!externalName && want.getIpFamilies() == null && have.getIpFamilies() != null) {
      want.setIpFamilies(new ArrayList<>(have.getIpFamilies()));
    }
    if (!externalName && want.getIpFamilyPolicy() == null) {
      want.setIpFamilyPolicy(have.getIpFamilyPolicy());
    }
    String type = want.getType() == null ? "ClusterIP" : want.getType();
    boolean loadBalancer = type.equals("LoadBalancer");
    // The API server refuses these on a Service that no longer may have them.
    if (want.getHealthCheckNodePort() == null
        && loadBalancer
        && "Local".equals(want.getExternalTrafficPolicy())) {
      want.setHealthCheckNodePort(have.getHealthCheckNodePort());
    }
    boolean nodePorts = loadBalancer || type.equals("NodePort");
    if (nodePorts && want.getPorts() != null && have.getPorts() != null) {
      for (ServicePort w : want.getPorts()) {
        if (w.getNodePort() != null) {
          continue;
        }
        for (ServicePort h : have.getPorts()) {
          // (port, protocol) is unique within a Service; a renamed port keeps its nodePort, so
          // the member's load balancer does not move.
          if (protocol(w).equals(protocol(h)) && Objects.equals(w.getPort(), h.getPort())) {
            w.setNodePort(h.getNodePort());
            break;
          }
        }
      }
    }
  }

  private static void keepDefaults(ServiceSpec want, ServiceSpec have) {
    if (want.getType() == null && "ClusterIP".equals(have.getType())) {
      want.setType(have.getType());
    }
    if (want.getSessionAffinity() == null && "None".equals(have.getSessionAffinity())) {
      want.setSessionAffinity(have.getSessionAffinity());
    }
    if (want.getInternalTrafficPolicy() == null
        && "Cluster".equals(have.getInternalTrafficPolicy())) {
      want.setInternalTrafficPolicy(have.getInternalTrafficPolicy());
    }
    if (want.getExternalTrafficPolicy() == null
        && "Cluster".equals(have.getExternalTrafficPolicy())) {
      want.setExternalTrafficPolicy(have.getExternalTrafficPolicy());
    }
    if (want.getAllocateLoadBalancerNodePorts() == null
        && Boolean.TRUE.equals(have.getAllocateLoadBalancerNodePorts())) {
      want.setAllocateLoadBalancerNodePorts(true);
    }
    if (want.getPorts() == null || have.getPorts() == null) {
      return;
    }
    for (int i = 0; i < want.getPorts().size() && i < have.getPorts().size(); i++) {
      ServicePort w = want.getPorts().get(i);
      ServicePort h = have.getPorts().get(i);
      if (w.getProtocol() == null && "TCP".equals(h.getProtocol())) {
        w.setProtocol("TCP");
      }
      if (w.getTargetPort() == null
          && w.getPort() != null
          && new IntOrString(w.getPort()).equals(h.getTargetPort())) {
        w.setTargetPort(new IntOrString(w.getPort()));
      }
    }
  }

  private static String protocol(ServicePort p) {
    return p.getProtocol() == null ? "TCP" : p.getProtocol();
  }

  private static Map<String, String> copyable(Map<String, String> from) {
    Map<String, String> out = new LinkedHashMap<>();
    if (from != null) {
      from.forEach(
          (k, v) -> {
            if (!HOST_ONLY_KEYS.contains(k) && !k.startsWith(FEDERATION_PREFIX)) {
              out.put(k, v);
            }
          });
    }
    return out;
  }

  /**
   * The member's keys with Pier's written over them: a key Pier copied before and the host no
   * longer has goes; every other key the member holds (another controller's) stays.
   */
  private static Map<String, String> merged(
      Map<String, String> member, Map<String, String> pier, Set<String> copiedBefore) {
    Map<String, String> out = new LinkedHashMap<>(member);
    copiedBefore.forEach(
        k -> {
          if (!pier.containsKey(k)) {
            out.remove(k);
          }
        });
    out.putAll(pier);
    return out;
  }

  private static Map<String, String> orEmpty(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }
}
