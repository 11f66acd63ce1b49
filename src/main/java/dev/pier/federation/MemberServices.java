package dev.pier.federation;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceSpecBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The member copies of a host Service: whose they are, what to create, what to update. */
public final class MemberServices {
  private MemberServices() {}

  /** Who a member Service belongs to, as far as this federation can tell ({@link CopyTrust}). */
  public enum Ownership {
    /** There is no member Service. */
    ABSENT,
    /** The copy Pier made, of this federation and this host: Pier may change or delete it. */
    OWNED,
    /** Someone else's, whatever marks it carries: never changed or deleted. */
    FOREIGN
  }

  private static final Set<String> HOST_ONLY_KEYS =
      Set.of(
          FederationKeys.FEDERATED_ANNOTATION,
          FederationKeys.CLUSTERS_ANNOTATION,
          FederationKeys.CLUSTER_SELECTOR_ANNOTATION,
          FederationKeys.DELETE_POLICY_ANNOTATION,
          FederationKeys.COPIED_KEYS_ANNOTATION,
          FederationKeys.COPY_UIDS_ANNOTATION,
          FederationKeys.COPY_NONCE_ANNOTATION,
          FederationKeys.NAMES_HELD_ANNOTATION,
          "kubectl.kubernetes.io/last-applied-configuration");
  private static final String FEDERATION_PREFIX = "federation.kubernetes.io/";
  private static final String HEADLESS = "None";

  /**
   * Whether the member Service carries this federation's marks: its label and the host cluster's
   * uid. Marks are no proof: anyone who may create a Service there can write them, and only a
   * marked Service whose uid Pier recorded is its copy ({@link CopyTrust}).
   */
  public static boolean marked(Service member, String federation, String hostClusterUid) {
    if (member == null) {
      return false;
    }
    ObjectMeta m = member.getMetadata();
    if (m == null) {
      return false;
    }
    String label =
        m.getLabels() == null ? null : m.getLabels().get(FederationKeys.FEDERATION_LABEL);
    String cluster =
        m.getAnnotations() == null
            ? null
            : m.getAnnotations().get(FederationKeys.HOST_CLUSTER_UID_ANNOTATION);
    return federation.equals(label) && hostClusterUid.equals(cluster);
  }

  /** The nonce a member Service carries ({@link FederationKeys#COPY_NONCE_ANNOTATION}), or null. */
  public static String nonce(Service member) {
    Map<String, String> a = member == null ? null : member.getMetadata().getAnnotations();
    return a == null ? null : a.get(FederationKeys.COPY_NONCE_ANNOTATION);
  }

  /**
   * The configuration of a copy's create: {@code config} carrying the nonce of the intent it is
   * made for. Only the create sends it: the copy keeps it under the create's entry, and applies
   * leave it alone.
   */
  public static JsonObject forCreate(JsonObject config, String nonce) {
    JsonObject create = config.copy();
    if (nonce != null) {
      JsonObject metadata = create.getJsonObject("metadata");
      JsonObject annotations = metadata.getJsonObject("annotations");
      if (annotations == null) {
        annotations = new JsonObject();
        metadata.put("annotations", annotations);
      }
      annotations.put(FederationKeys.COPY_NONCE_ANNOTATION, nonce);
    }
    return create;
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
    spec.setExternalIPs(null);
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
   * The apply configuration of a copy: {@code desired} as JSON, without the spec fields at their
   * API defaults ({@link ServiceDefaults}), so that a member's controller may set those. Pier sends
   * it whole, under {@link CopyApply#MANAGER}; the fields it leaves out are not Pier's.
   */
  public static JsonObject config(Service desired) {
    JsonObject json = new JsonObject(Serialization.asJson(desired));
    JsonObject spec = json.getJsonObject("spec");
    if (spec != null) {
      json.put("spec", ServiceDefaults.strip(spec));
    }
    return json;
  }

  /**
   * What to send so that an existing, owned copy matches {@code desired}, or null when it already
   * does ({@link CopyApply}). Like the seed's {@code Equivalent} it compares what users write:
   * fields the member allocates or defaults, and those another controller owns, are not a
   * difference.
   */
  public static CopyApply.Change change(Service desired, Service existing) {
    return CopyApply.change(config(desired), new JsonObject(Serialization.asJson(existing)));
  }

  /**
   * The copy without the federation's marks and without Pier's managed-fields entries: what an
   * orphaning leaves behind, owned by no one of Pier's.
   */
  public static Service orphaned(Service copy) {
    ObjectMeta m = copy.getMetadata();
    Map<String, String> labels = new LinkedHashMap<>(orEmpty(m.getLabels()));
    labels.remove(FederationKeys.FEDERATION_LABEL);
    Map<String, String> annotations = new LinkedHashMap<>(orEmpty(m.getAnnotations()));
    annotations.remove(FederationKeys.HOST_CLUSTER_UID_ANNOTATION);
    annotations.remove(FederationKeys.HOST_SERVICE_UID_ANNOTATION);
    annotations.remove(FederationKeys.COPIED_KEYS_ANNOTATION);
    annotations.remove(FederationKeys.COPY_NONCE_ANNOTATION);
    List<ManagedFieldsEntry> kept = new ArrayList<>();
    if (m.getManagedFields() != null) {
      for (ManagedFieldsEntry e : m.getManagedFields()) {
        if (!CopyApply.MANAGER.equals(e.getManager())) {
          kept.add(e);
        }
      }
    }
    if (kept.isEmpty()) {
      // An empty list keeps the server's entries; one empty entry clears them.
      kept.add(new ManagedFieldsEntry());
    }
    return new ServiceBuilder(copy)
        .editMetadata()
        .withLabels(labels)
        .withAnnotations(annotations)
        .withManagedFields(kept)
        .endMetadata()
        .build();
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

  private static Map<String, String> orEmpty(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }
}
