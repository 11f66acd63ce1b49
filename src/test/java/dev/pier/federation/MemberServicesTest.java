package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class MemberServicesTest {
  private static final String FED = "pier";
  private static final String HOST_CLUSTER = "kube-system-uid-1";
  private static final String HOST_SERVICE = "svc-uid-1";

  /** A host Service as the host API server returns it: allocated and defaulted. */
  private static Service host() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app", "web");
    labels.put("pier.dev/federated", "true");
    labels.put("federation.kubernetes.io/x", "y");
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("team", "shop");
    annotations.put("pier.dev/federated", "true");
    annotations.put("pier.dev/clusters", "c1,c2");
    annotations.put("pier.dev/cluster-selector", "region=eu");
    annotations.put("pier.dev/delete-policy", "orphan");
    annotations.put("federation.kubernetes.io/service-ingresses", "{}");
    annotations.put("federation.kubernetes.io/anything", "x");
    annotations.put("kubectl.kubernetes.io/last-applied-configuration", "{...}");
    annotations.put("kubectl.kubernetes.io/restartedAt", "now");
    annotations.put("pier.dev/lb-class", "keep me");
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web")
        .withUid(HOST_SERVICE)
        .withResourceVersion("42")
        .withCreationTimestamp("2026-01-01T00:00:00Z")
        .withGeneration(3L)
        .withFinalizers("federation.kubernetes.io/delete-from-underlying-clusters")
        .addNewOwnerReference()
        .withApiVersion("v1")
        .withKind("ConfigMap")
        .withName("owner")
        .withUid("o1")
        .endOwnerReference()
        .addNewManagedField()
        .withManager("kubectl")
        .endManagedField()
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withClusterIP("10.0.0.10")
        .withClusterIPs("10.0.0.10")
        .withIpFamilies("IPv4")
        .withIpFamilyPolicy("SingleStack")
        .withSelector(Map.of("app", "web"))
        .withSessionAffinity("None")
        .withExternalTrafficPolicy("Local")
        .withHealthCheckNodePort(31999)
        .withInternalTrafficPolicy("Cluster")
        .withAllocateLoadBalancerNodePorts(true)
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withTargetPort(new IntOrString(8080))
        .withNodePort(30080)
        .endPort()
        .addNewPort()
        .withName("dns")
        .withProtocol("UDP")
        .withPort(53)
        .withTargetPort(new IntOrString(53))
        .withNodePort(30053)
        .endPort()
        .endSpec()
        .withNewStatus()
        .withNewLoadBalancer()
        .addNewIngress()
        .withIp("203.0.113.1")
        .endIngress()
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  private static Service desired() {
    return MemberServices.desired(host(), FED, HOST_CLUSTER, HOST_SERVICE);
  }

  /** The member copy as the member's API server keeps it after Pier created desired(). */
  private static Service created() {
    return managed(allocated(), entry(CopyApply.MANAGER, "Update", createdPaths()));
  }

  private static Service allocated() {
    Service d = desired();
    return new ServiceBuilder(d)
        .editMetadata()
        .withUid("member-uid")
        .withResourceVersion("7")
        .withCreationTimestamp("2026-02-01T00:00:00Z")
        .withFinalizers("service.kubernetes.io/load-balancer-cleanup")
        .endMetadata()
        .editSpec()
        .withClusterIP("10.96.0.5")
        .withClusterIPs("10.96.0.5")
        .withIpFamilies("IPv4")
        .withIpFamilyPolicy("SingleStack")
        .withHealthCheckNodePort(32111)
        .editFirstPort()
        .withNodePort(31080)
        .endPort()
        .editLastPort()
        .withNodePort(31053)
        .endPort()
        .endSpec()
        .withNewStatus()
        .withNewLoadBalancer()
        .addNewIngress()
        .withIp("198.51.100.7")
        .endIngress()
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  private static Service member(Map<String, String> labels, Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web")
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  private static Service edit(Service s, UnaryOperator<ServiceBuilder> change) {
    return change.apply(new ServiceBuilder(s)).build();
  }

  @Test
  void externalIpsNeverReachAMember() {
    Service withExternalIps =
        new ServiceBuilder(host()).editSpec().withExternalIPs("203.0.113.7").endSpec().build();
    Service desired = MemberServices.desired(withExternalIps, FED, HOST_CLUSTER, HOST_SERVICE);
    assertThat(desired.getSpec().getExternalIPs()).isNullOrEmpty();
    assertThat(MemberServices.config(desired).getJsonObject("spec").containsKey("externalIPs"))
        .isFalse();
    // A copy that carries them from Pier's own earlier write loses them; another manager's stay.
    Service pierWrote =
        managed(
            edit(created(), b -> b.editSpec().withExternalIPs("203.0.113.7").endSpec()),
            entry(CopyApply.MANAGER, "Apply", appliedPaths()),
            entry("fabric8-kubernetes-client", "Update", Set.of(p("f:spec", "f:externalIPs"))));
    assertThat(MemberServices.change(desired, pierWrote)).isNotNull();
    Service theirs =
        managed(
            edit(created(), b -> b.editSpec().withExternalIPs("203.0.113.7").endSpec()),
            entry(CopyApply.MANAGER, "Apply", appliedPaths()),
            entry("ipam", "Update", Set.of(p("f:spec", "f:externalIPs"))));
    assertThat(MemberServices.change(desired, theirs)).isNull();
  }

  @Test
  void noMemberServiceCarriesNoMarks() {
    assertThat(MemberServices.marked(null, FED, HOST_CLUSTER)).isFalse();
  }

  @Test
  void unmarkedWithoutTheLabel() {
    Service s = member(null, Map.of(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, HOST_CLUSTER));
    assertThat(MemberServices.marked(s, FED, HOST_CLUSTER)).isFalse();
    assertThat(MemberServices.marked(member(null, null), FED, HOST_CLUSTER)).isFalse();
  }

  @Test
  void unmarkedForAnotherFederationsLabel() {
    Service s =
        member(
            Map.of(FederationKeys.FEDERATION_LABEL, "other"),
            Map.of(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, HOST_CLUSTER));
    assertThat(MemberServices.marked(s, FED, HOST_CLUSTER)).isFalse();
  }

  @Test
  void unmarkedForAnotherHostCluster() {
    Service other =
        member(
            Map.of(FederationKeys.FEDERATION_LABEL, FED),
            Map.of(FederationKeys.HOST_CLUSTER_UID_ANNOTATION, "another-host"));
    assertThat(MemberServices.marked(other, FED, HOST_CLUSTER)).isFalse();
    Service none = member(Map.of(FederationKeys.FEDERATION_LABEL, FED), null);
    assertThat(MemberServices.marked(none, FED, HOST_CLUSTER)).isFalse();
  }

  /** The marks say nothing of the host Service: a re-created one finds its copies by its record. */
  @Test
  void markedWhateverHostServiceItNames() {
    Service s =
        member(
            Map.of(FederationKeys.FEDERATION_LABEL, FED),
            Map.of(
                FederationKeys.HOST_CLUSTER_UID_ANNOTATION,
                HOST_CLUSTER,
                FederationKeys.HOST_SERVICE_UID_ANNOTATION,
                "an-older-host-service"));
    assertThat(MemberServices.marked(s, FED, HOST_CLUSTER)).isTrue();
    assertThat(MemberServices.marked(desired(), FED, HOST_CLUSTER)).isTrue();
  }

  /**
   * The record of copies stays on the host (a copy that carried it could vouch for itself), and so
   * does the hold's time, which would otherwise rewrite every copy when a hold starts and ends.
   */
  @Test
  void theFederationsOwnHostAnnotationsAreNeverCopied() {
    Service host =
        new ServiceBuilder(host())
            .editMetadata()
            .addToAnnotations(FederationKeys.COPY_UIDS_ANNOTATION, "{\"east\":\"u\"}")
            .addToAnnotations(FederationKeys.NAMES_HELD_ANNOTATION, "2026-12-05T16:18:57Z")
            .addToAnnotations(FederationKeys.COPY_NONCE_ANNOTATION, "n")
            .endMetadata()
            .build();
    assertThat(MemberServices.desired(host, FED, HOST_CLUSTER, "h").getMetadata().getAnnotations())
        .doesNotContainKeys(
            FederationKeys.COPY_UIDS_ANNOTATION,
            FederationKeys.NAMES_HELD_ANNOTATION,
            FederationKeys.COPY_NONCE_ANNOTATION);
  }

  @Test
  void desiredKeepsTheNameAndNamespaceAndNoServerFields() {
    Service d = desired();
    assertThat(d.getApiVersion()).isEqualTo("v1");
    assertThat(d.getKind()).isEqualTo("Service");
    assertThat(d.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(d.getMetadata().getName()).isEqualTo("web");
    assertThat(d.getMetadata().getUid()).isNull();
    assertThat(d.getMetadata().getResourceVersion()).isNull();
    assertThat(d.getMetadata().getCreationTimestamp()).isNull();
    assertThat(d.getMetadata().getGeneration()).isNull();
    assertThat(d.getMetadata().getFinalizers()).isEmpty();
    assertThat(d.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(d.getMetadata().getManagedFields()).isEmpty();
    assertThat(d.getStatus()).isNull();
  }

  @Test
  void desiredStripsExactlyFederationsKeysAndAddsItsMarks() {
    Service d = desired();
    assertThat(d.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(Map.of("app", "web", "pier.dev/federation", FED));
    assertThat(d.getMetadata().getAnnotations())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "team", "shop",
                "kubectl.kubernetes.io/restartedAt", "now",
                "pier.dev/lb-class", "keep me",
                "pier.dev/host-cluster-uid", HOST_CLUSTER,
                "pier.dev/host-service-uid", HOST_SERVICE,
                "pier.dev/copied-keys",
                    "labels=app;annotations=kubectl.kubernetes.io/restartedAt,pier.dev/lb-class,team"));
  }

  @Test
  void desiredDropsWhatEachClusterAllocates() {
    Service d = desired();
    assertThat(d.getSpec().getClusterIP()).isNull();
    assertThat(d.getSpec().getClusterIPs()).isNullOrEmpty();
    assertThat(d.getSpec().getIpFamilies()).isNullOrEmpty();
    assertThat(d.getSpec().getIpFamilyPolicy()).isNull();
    assertThat(d.getSpec().getHealthCheckNodePort()).isNull();
    assertThat(d.getSpec().getPorts()).extracting(ServicePort::getNodePort).containsOnlyNulls();
  }

  @Test
  void desiredKeepsTheRestOfTheSpec() {
    Service d = desired();
    assertThat(d.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(d.getSpec().getSelector()).isEqualTo(Map.of("app", "web"));
    assertThat(d.getSpec().getExternalTrafficPolicy()).isEqualTo("Local");
    assertThat(d.getSpec().getSessionAffinity()).isEqualTo("None");
    assertThat(d.getSpec().getAllocateLoadBalancerNodePorts()).isTrue();
    assertThat(d.getSpec().getPorts())
        .extracting(ServicePort::getName, ServicePort::getProtocol, ServicePort::getPort)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("http", "TCP", 80),
            org.assertj.core.groups.Tuple.tuple("dns", "UDP", 53));
    assertThat(d.getSpec().getPorts().get(0).getTargetPort()).isEqualTo(new IntOrString(8080));
  }

  @Test
  void desiredDoesNotChangeTheHost() {
    Service h = host();
    MemberServices.desired(h, FED, HOST_CLUSTER, HOST_SERVICE);
    assertThat(h).isEqualTo(host());
    assertThat(h.getSpec().getPorts().get(0).getNodePort()).isEqualTo(30080);
  }

  @Test
  void desiredKeepsHeadless() {
    Service headless =
        edit(
            host(),
            b ->
                b.editSpec()
                    .withType("ClusterIP")
                    .withClusterIP("None")
                    .withClusterIPs("None")
                    .endSpec());
    Service d = MemberServices.desired(headless, FED, HOST_CLUSTER, HOST_SERVICE);
    assertThat(d.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(d.getSpec().getClusterIPs()).containsExactly("None");
  }

  /** The paths an apply of desired()'s configuration leaves owned by Pier's manager. */
  private static Set<List<String>> appliedPaths() {
    Set<List<String>> paths = new java.util.LinkedHashSet<>();
    for (List<String> path : FieldPaths.of(MemberServices.config(desired()))) {
      if (path.get(0).equals("f:spec") || path.size() > 2) {
        paths.add(path);
      }
    }
    return paths;
  }

  /** The paths a create of desired()'s configuration leaves owned by its manager. */
  private static Set<List<String>> createdPaths() {
    Set<List<String>> paths = appliedPaths();
    // Defaulted at the create, so owned by it too.
    paths.add(p("f:spec", "f:sessionAffinity"));
    paths.add(p("f:spec", "f:ports", DNS_PORT, "f:targetPort"));
    return paths;
  }

  private static final String HTTP_PORT = "k:{\"port\":80,\"protocol\":\"TCP\"}";
  private static final String DNS_PORT = "k:{\"port\":53,\"protocol\":\"UDP\"}";

  private static List<String> p(String... steps) {
    return List.of(steps);
  }

  private static JsonObject entry(String manager, String operation, Set<List<String>> paths) {
    return new JsonObject()
        .put("manager", manager)
        .put("operation", operation)
        .put("apiVersion", "v1")
        .put("fieldsType", "FieldsV1")
        .put("fieldsV1", FieldPaths.toFieldsV1(paths));
  }

  private static Service managed(Service s, JsonObject... entries) {
    JsonObject json = new JsonObject(Serialization.asJson(s));
    json.getJsonObject("metadata").put("managedFields", new JsonArray(List.of((Object[]) entries)));
    return Serialization.unmarshal(json.encode(), Service.class);
  }

  private static Set<List<String>> owned(JsonArray managedFields, String manager, String op) {
    for (Object e : managedFields) {
      JsonObject entry = (JsonObject) e;
      if (manager.equals(entry.getString("manager")) && op.equals(entry.getString("operation"))) {
        return FieldPaths.leaves(entry.getJsonObject("fieldsV1"));
      }
    }
    return Set.of();
  }

  private static JsonArray migration(Service desired, Service have) {
    return CopyApply.migration(
        MemberServices.config(desired), new JsonObject(Serialization.asJson(have)));
  }

  /** desired() after the host dropped its label {@code app}. */
  private static Service desiredWithoutAppLabel() {
    return MemberServices.desired(
        edit(host(), h -> h.editMetadata().removeFromLabels("app").endMetadata()),
        FED,
        HOST_CLUSTER,
        HOST_SERVICE);
  }

  private static Service applied() {
    return managed(created(), entry(CopyApply.MANAGER, "Apply", appliedPaths()));
  }

  @Test
  void configLeavesOutWhatTheMemberDefaultsAndKeepsEveryPortsProtocol() {
    Service sparse =
        MemberServices.desired(
            edit(
                host(),
                b ->
                    b.editSpec()
                        .withType("ClusterIP")
                        .withExternalTrafficPolicy("Cluster")
                        .editLastPort()
                        .withTargetPort(new IntOrString(53))
                        .endPort()
                        .endSpec()),
            FED,
            HOST_CLUSTER,
            HOST_SERVICE);
    JsonObject spec = MemberServices.config(sparse).getJsonObject("spec");
    assertThat(spec.fieldNames())
        .doesNotContain(
            "type",
            "sessionAffinity",
            "externalTrafficPolicy",
            "internalTrafficPolicy",
            "allocateLoadBalancerNodePorts",
            "clusterIP",
            "healthCheckNodePort")
        .contains("selector", "ports");
    JsonArray ports = spec.getJsonArray("ports");
    assertThat(ports.getJsonObject(0).getValue("targetPort")).isEqualTo(8080);
    assertThat(ports.getJsonObject(1).containsKey("targetPort")).isFalse();
    assertThat(ports.getJsonObject(1).getString("protocol")).isEqualTo("UDP");
    assertThat(ports.getJsonObject(0).containsKey("nodePort")).isFalse();
  }

  @Test
  void nothingToSendWhenTheCopyMatches() {
    assertThat(MemberServices.change(desired(), created())).isNull();
    assertThat(MemberServices.change(desired(), applied())).isNull();
  }

  /** A policy engine sets a field the host leaves at its default: the member's, no write. */
  @Test
  void aFieldTheHostLeavesAtItsDefaultIsTheMembers() {
    Service theirs =
        managed(
            edit(applied(), b -> b.editSpec().withSessionAffinity("ClientIP").endSpec()),
            entry(CopyApply.MANAGER, "Apply", appliedPaths()),
            entry("policy-engine", "Update", Set.of(p("f:spec", "f:sessionAffinity"))));
    assertThat(MemberServices.change(desired(), theirs)).isNull();
  }

  /** The host sets a field back to its default: Pier lets go of it, and the member defaults it. */
  @Test
  void aFieldTheHostSetsBackToItsDefaultIsReleased() {
    Service local = desired();
    Service cluster =
        MemberServices.desired(
            edit(host(), b -> b.editSpec().withExternalTrafficPolicy("Cluster").endSpec()),
            FED,
            HOST_CLUSTER,
            HOST_SERVICE);
    assertThat(local.getSpec().getExternalTrafficPolicy()).isEqualTo("Local");
    CopyApply.Change change = MemberServices.change(cluster, applied());
    assertThat(change).isNotNull();
    assertThat(change.config().getJsonObject("spec").containsKey("externalTrafficPolicy"))
        .isFalse();
    assertThat(change.migrate()).isFalse();
  }

  @Test
  void aRenamedPortIsAnApplyThatLeavesTheNodePortToTheMember() {
    Service renamed =
        edit(desired(), b -> b.editSpec().editFirstPort().withName("web").endPort().endSpec());
    CopyApply.Change change = MemberServices.change(renamed, applied());
    assertThat(change).isNotNull();
    JsonObject port = change.config().getJsonObject("spec").getJsonArray("ports").getJsonObject(0);
    assertThat(port.getString("name")).isEqualTo("web");
    assertThat(port.getInteger("port")).isEqualTo(80);
    assertThat(port.getString("protocol")).isEqualTo("TCP");
    assertThat(port.containsKey("nodePort")).isFalse();
  }

  @Test
  void aDroppedPortThatPierOwnsIsAChange() {
    Service oneField =
        edit(
            desired(),
            b -> {
              List<ServicePort> ports = b.buildSpec().getPorts();
              return b.editSpec().withPorts(ports.get(0)).endSpec();
            });
    assertThat(MemberServices.change(oneField, applied())).isNotNull();
  }

  @Test
  void aChangedSelectorLabelOrAnnotationIsAChange() {
    Service selector =
        edit(desired(), b -> b.editSpec().withSelector(Map.of("app", "web2")).endSpec());
    assertThat(
            MemberServices.change(selector, applied())
                .config()
                .getJsonObject("spec")
                .getJsonObject("selector")
                .getMap())
        .isEqualTo(Map.of("app", "web2"));
    Service label = edit(desired(), b -> b.editMetadata().addToLabels("tier", "a").endMetadata());
    assertThat(MemberServices.change(label, applied())).isNotNull();
    Service newHostUid =
        MemberServices.desired(host(), FED, HOST_CLUSTER, "recreated-host-service");
    assertThat(
            MemberServices.change(newHostUid, applied())
                .config()
                .getJsonObject("metadata")
                .getJsonObject("annotations")
                .getString(FederationKeys.HOST_SERVICE_UID_ANNOTATION))
        .isEqualTo("recreated-host-service");
  }

  /**
   * Another controller in the member (kube-vip, a policy engine, a webhook) adds its labels and
   * annotations to a copy: they stay, cause no write, and are never in Pier's configuration; a key
   * Pier copied and the host dropped is a change (the apply removes it).
   */
  @Test
  void keysAnotherControllerAddsStayAndCauseNoWrite() {
    Service theirs =
        managed(
            edit(
                applied(),
                b ->
                    b.editMetadata()
                        .addToLabels("policy.example.com/checked", "true")
                        .addToAnnotations("kube-vip.io/vipHost", "node-1")
                        .endMetadata()),
            entry(CopyApply.MANAGER, "Apply", appliedPaths()),
            entry(
                "kube-vip",
                "Update",
                Set.of(
                    p("f:metadata", "f:labels", "f:policy.example.com/checked"),
                    p("f:metadata", "f:annotations", "f:kube-vip.io/vipHost"))));
    assertThat(MemberServices.change(desired(), theirs)).isNull();

    Service dropped = desiredWithoutAppLabel();
    CopyApply.Change change = MemberServices.change(dropped, theirs);
    assertThat(change).isNotNull();
    assertThat(change.config().getJsonObject("metadata").getJsonObject("labels").fieldNames())
        .doesNotContain("app", "policy.example.com/checked");
  }

  /**
   * A copy Pier wrote before it applied: the client's default manager owns what it wrote. Pier
   * moves to its apply manager only what it provably wrote (spec fields other than allocations,
   * keys it copied or marks with); another controller's key under the same manager, allocations and
   * status stay where they are.
   */
  @Test
  void aCopyWrittenBeforeServerSideApplyMovesOnlyPiersFieldsOnce() {
    Set<List<String>> legacy = new java.util.LinkedHashSet<>(createdPaths());
    legacy.add(p("f:metadata", "f:labels", "f:gone-from-host"));
    legacy.add(p("f:spec", "f:ports", HTTP_PORT, "f:nodePort"));
    legacy.add(p("f:status", "f:loadBalancer", "f:ingress"));
    Service old =
        managed(
            edit(created(), b -> b.editMetadata().addToLabels("gone-from-host", "x").endMetadata()),
            entry("fabric8-kubernetes-client", "Update", legacy));
    assertThat(MemberServices.change(desired(), old))
        .as("a matching copy is not migrated: the move waits for a real change")
        .isNull();

    Service dropped = desiredWithoutAppLabel();
    CopyApply.Change change = MemberServices.change(dropped, old);
    assertThat(change).isNotNull();
    assertThat(change.migrate()).isTrue();
    JsonArray moved = migration(dropped, old);
    Set<List<String>> apply = owned(moved, CopyApply.MANAGER, "Apply");
    Set<List<String>> left = owned(moved, "fabric8-kubernetes-client", "Update");
    assertThat(apply)
        .contains(
            p("f:metadata", "f:labels", "f:app"),
            p("f:metadata", "f:labels", "f:pier.dev/federation"),
            p("f:spec", "f:ports", HTTP_PORT, "f:name"),
            p("f:spec", "f:selector", "f:app"))
        .doesNotContain(
            p("f:metadata", "f:labels", "f:gone-from-host"),
            p("f:spec", "f:ports", HTTP_PORT, "f:nodePort"));
    assertThat(left)
        .containsExactlyInAnyOrder(
            p("f:metadata", "f:labels", "f:gone-from-host"),
            p("f:spec", "f:ports", HTTP_PORT, "f:nodePort"),
            p("f:status", "f:loadBalancer", "f:ingress"));
  }

  /** A copy that does not say what Pier copied: none of its keys is taken for Pier's. */
  @Test
  void aCopyThatDoesNotSayWhatPierCopiedLosesNoKey() {
    Set<List<String>> legacy = new java.util.LinkedHashSet<>(createdPaths());
    legacy.add(p("f:metadata", "f:labels", "f:gone-from-host"));
    Service old =
        managed(
            edit(
                created(),
                b ->
                    b.editMetadata()
                        .removeFromAnnotations("pier.dev/copied-keys")
                        .addToLabels("gone-from-host", "x")
                        .endMetadata()),
            entry("fabric8-kubernetes-client", "Update", legacy));
    CopyApply.Change change = MemberServices.change(desired(), old);
    assertThat(change).isNotNull();
    assertThat(owned(migration(desired(), old), CopyApply.MANAGER, "Apply"))
        .doesNotContain(p("f:metadata", "f:labels", "f:gone-from-host"));
    assertThat(change.config().getJsonObject("metadata").getJsonObject("annotations").fieldNames())
        .contains("pier.dev/copied-keys");
  }

  @Test
  void anOrphanedCopyLosesPiersMarksAndEntriesOnly() {
    Service theirs =
        managed(
            edit(applied(), b -> b.editMetadata().addToLabels("policy", "x").endMetadata()),
            entry(CopyApply.MANAGER, "Apply", appliedPaths()),
            entry("policy-engine", "Update", Set.of(p("f:metadata", "f:labels", "f:policy"))));
    Service orphan = MemberServices.orphaned(theirs);
    assertThat(orphan.getMetadata().getLabels())
        .containsEntry("policy", "x")
        .containsEntry("app", "web")
        .doesNotContainKey(FederationKeys.FEDERATION_LABEL);
    assertThat(orphan.getMetadata().getAnnotations())
        .doesNotContainKeys(
            FederationKeys.HOST_CLUSTER_UID_ANNOTATION,
            FederationKeys.HOST_SERVICE_UID_ANNOTATION,
            FederationKeys.COPIED_KEYS_ANNOTATION);
    assertThat(orphan.getMetadata().getManagedFields())
        .extracting(f -> f.getManager())
        .containsExactly("policy-engine");
    // Only Pier's entries: one empty entry, which clears them (an empty list would keep them).
    assertThat(MemberServices.orphaned(applied()).getMetadata().getManagedFields())
        .singleElement()
        .satisfies(f -> assertThat(f.getManager()).isNull());
  }

  @Test
  void changeDoesNotChangeItsArguments() {
    Service d = desired();
    Service e = applied();
    Service changed = edit(d, b -> b.editSpec().withSelector(Map.of("x", "y")).endSpec());
    MemberServices.change(changed, e);
    assertThat(changed.getSpec().getClusterIP()).isNull();
    assertThat(e).isEqualTo(applied());
  }
}
