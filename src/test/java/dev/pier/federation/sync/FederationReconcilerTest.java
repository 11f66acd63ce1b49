package dev.pier.federation.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.ServingCluster;
import dev.pier.events.EventReasons;
import dev.pier.federation.CopyState;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.LeavePolicy;
import dev.pier.federation.MemberServices;
import dev.pier.federation.members.FakeMembers;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.KubeApiException;
import dev.pier.model.FederationKeys;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.nodes.Topology;
import dev.pier.policy.DeletionGuard;
import dev.pier.queue.WorkResult;
import dev.pier.queue.WorkResult.Outcome;
import dev.pier.reconcile.ReconcileFakes.FakeCluster;
import dev.pier.testkit.Services;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.PortStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The federation's rules against in-memory fakes of the host, a member, their writes and Events:
 * every future completes at once, so each case runs in milliseconds. The same paths run against
 * real kube-apiservers in {@link FederationTest}.
 */
class FederationReconcilerTest {
  private static final String FED = "fed";
  private static final ServiceKey HOST_KEY = new ServiceKey("host", "ns", "web");
  private static final ServiceKey EAST_KEY = new ServiceKey("east", "ns", "web");
  private static final String HOST_SERVICE_UID = "host-web-uid";
  private static final String RECORD = "{\"east\":\"copy-uid\",\"west\":\"copy-uid\"}";
  private static final String INTENT_RECORD = "{\"east\":\"pending:n-east\"}";

  private final FakeCluster host = new FakeCluster("host");
  private final FakeCluster east = new FakeCluster("east");
  private final FakeFederationWrites hostWrites = new FakeFederationWrites();
  private final FakeFederationWrites eastWrites = new FakeFederationWrites();
  private final List<ServiceKey> enqueued = new ArrayList<>();
  private final FederationOptions options = new FederationOptions().setName(FED);
  private final long now = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli();
  private Members members;
  private Member eastMember;
  private DeletionGuard guard = new DeletionGuard(10, 50, Duration.ofMinutes(10), true, () -> now);
  private boolean optedIn = true;
  private FederatedNames names;
  private final List<String> published = new ArrayList<>();
  private FederationReconciler reconciler;
  // Where the aggregate reads members' copies: null reads this process's caches.
  private CopyReader copies;

  @BeforeEach
  void setUp() {
    host.federationWrites = hostWrites;
    east.federationWrites = eastWrites;
    members = FakeMembers.registry(options);
    eastMember = FakeMembers.add(members, east, Map.of());
  }

  private WorkResult run(ServiceKey key) {
    Future<WorkResult> f = reconcilerFor().run(key);
    assertThat(f.isComplete()).as("the fakes answer at once").isTrue();
    return f.result();
  }

  private FederationReconciler reconcilerFor() {
    if (reconciler == null) {
      reconciler =
          new FederationReconciler(
              null,
              host,
              members,
              options,
              enqueued::add,
              () -> now,
              names,
              new HeldNames(new SimpleMeterRegistry()),
              guard,
              ns -> optedIn,
              copies);
    }
    return reconciler;
  }

  /**
   * The federated host Service, as read at resourceVersion 42, with the record of Pier's copies in
   * east and west (each made with uid {@code copy-uid}, as {@link #copyOf} has it).
   */
  private static Service hostService(UnaryOperator<ServiceBuilder> edit) {
    Service s = Services.loadBalancer("ns", "web", 80, 30080);
    return edit.apply(
            new ServiceBuilder(s)
                .editMetadata()
                .withUid(HOST_SERVICE_UID)
                .withResourceVersion("42")
                .addToAnnotations(FederationKeys.FEDERATED_ANNOTATION, "true")
                .addToAnnotations(FederationKeys.COPY_UIDS_ANNOTATION, RECORD)
                .endMetadata())
        .build();
  }

  private static Service hostService() {
    return hostService(b -> b);
  }

  /**
   * The host Service as its host key first federates it: the finalizer, and the record of Pier's
   * intent to make a copy in east, whose nonce the copy carries.
   */
  private static Service intendedHostService() {
    return hostService(
        b ->
            b.editMetadata()
                .addToFinalizers(FederationKeys.FINALIZER)
                .addToAnnotations(FederationKeys.COPY_UIDS_ANNOTATION, INTENT_RECORD)
                .endMetadata());
  }

  /** The host Service once its host key added the finalizer, which a copy is made after. */
  private static Service finalizedHostService() {
    return hostService(
        b -> b.editMetadata().addToFinalizers(FederationKeys.FINALIZER).endMetadata());
  }

  /** The host Service being deleted, still held by the federation's finalizer. */
  private Service deletedHostService(UnaryOperator<ServiceBuilder> edit) {
    return hostService(
        b ->
            edit.apply(
                b.editMetadata()
                    .addToFinalizers(FederationKeys.FINALIZER)
                    .withDeletionTimestamp(Instant.ofEpochMilli(now).toString())
                    .endMetadata()));
  }

  /** Pier's copy of {@code of} in the member, as that member's cache shows it. */
  private Service copyOf(Service of, String resourceVersion) {
    return new ServiceBuilder(
            MemberServices.desired(of, FED, host.identity().uid(), HOST_SERVICE_UID))
        .editMetadata()
        .withUid("copy-uid")
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  private static UnaryOperator<ServiceBuilder> annotated(String key, String value) {
    return b -> b.editMetadata().addToAnnotations(key, value).endMetadata();
  }

  /** The host Service placed in {@code cluster} only, with a copy Pier owns in east. */
  private void placedIn(String cluster) {
    Service svc = hostService(annotated(FederationKeys.CLUSTERS_ANNOTATION, cluster));
    host.put(svc);
    east.put(copyOf(svc, "7"));
  }

  /** Pier's copy of {@code of}, served by a load balancer at 203.0.113.5 (ipMode and ports). */
  private Service servingCopyOf(Service of) {
    return new ServiceBuilder(copyOf(of, "7"))
        .withNewStatus()
        .withNewLoadBalancer()
        .withIngress(
            new LoadBalancerIngressBuilder()
                .withIp("203.0.113.5")
                .withIpMode("Proxy")
                .withPorts(new PortStatusBuilder().withPort(80).withProtocol("TCP").build())
                .build())
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  /** A DNS port that records what it is asked. */
  private final class RecordedNames implements FederatedNames {
    @Override
    public Future<ServingCluster> servingCluster(
        ClusterLocation location, List<LbIngress> ingress, boolean healthy) {
      List<String> ips = ingress.stream().map(LbIngress::ip).toList();
      published.add("serving " + location.cluster() + " " + ips + " healthy=" + healthy);
      return Future.succeededFuture(
          new ServingCluster(location, ips, List.of(), healthy, List.of()));
    }

    @Override
    public Future<WorkResult> syncFederated(
        ServiceKey key, Service svc, boolean federated, List<Future<ServingCluster>> serving) {
      published.add("sync " + key + " federated=" + federated + " serving=" + serving.size());
      return Future.succeededFuture(WorkResult.success());
    }
  }

  @Test
  void aPlacedCopyThatIsAbsentIsCreated() {
    host.put(intendedHostService());

    assertThat(run(EAST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(eastWrites.calls).containsExactly("create ns/web");
    assertThat(host.events.recorded).containsExactly("Normal CreatedInCluster");
    assertThat(
            eastWrites
                .lastCreated
                .getJsonObject("metadata")
                .getJsonObject("annotations")
                .getString(FederationKeys.COPY_NONCE_ANNOTATION))
        .as("the copy carries the nonce of the intent it is made for")
        .isEqualTo("n-east");
  }

  /** Without the host record's intent for the member, no copy is made: the host key writes one. */
  @Test
  void noCopyIsMadeBeforeTheHostRecordHasAnIntentForIt() {
    host.put(withRecord("{}"));

    assertThat(run(EAST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(eastWrites.calls).isEmpty();

    run(HOST_KEY);

    assertThat(hostWrites.lastAnnotations.get(FederationKeys.COPY_UIDS_ANNOTATION))
        .startsWith("{\"east\":\"pending:");
  }

  @Test
  void aMemberKeyRunBeforeTheHostKeyAddedTheFinalizerCreatesNoCopy() {
    host.put(hostService());

    assertThat(run(EAST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(eastWrites.calls).isEmpty();
  }

  @Test
  void aMissingNamespaceIsCreatedOnlyWhenTheMemberSaysSo() {
    host.put(intendedHostService());
    eastWrites.failOnce.put("create", new KubeApiException(404, "namespaces \"ns\" not found"));

    run(EAST_KEY);

    assertThat(eastWrites.calls)
        .containsExactly("create ns/web", "ensureNamespace ns/ns", "create ns/web");
  }

  /** With memberScope namespaces, a Role per namespace: Pier never creates one, and says so. */
  @Test
  void withNamespacedMembersAMissingNamespaceIsNeverCreated() {
    options.setMemberScope(FederationOptions.MemberScope.NAMESPACES).setNamespaces(List.of("ns"));
    host.put(intendedHostService());
    eastWrites.failOnce.put("create", new KubeApiException(404, "namespaces \"ns\" not found"));

    WorkResult result = run(EAST_KEY);

    assertThat(eastWrites.calls).containsExactly("create ns/web");
    assertThat(host.events.recorded)
        .containsExactly("Warning " + EventReasons.MEMBER_NAMESPACE_UNREADABLE);
    assertThat(result.outcome()).isEqualTo(Outcome.RETRY_AFTER);
    assertThat(result.delay()).isEqualTo(FederationReconciler.MISSING_NAMESPACE_RETRY);
  }

  /**
   * With memberScope namespaces, a namespace the member does not let Pier list holds up only its
   * own Services: no write, a Warning, a later look; the other namespaces run.
   */
  @Test
  void withNamespacedMembersAnUnreadableNamespaceWaitsWithAWarningAndHoldsUpNoOther() {
    options
        .setMemberScope(FederationOptions.MemberScope.NAMESPACES)
        .setNamespaces(List.of("ns", "api"));
    east.unreadable.put("ns", "services is forbidden");
    host.put(finalizedHostService());
    Service api =
        new ServiceBuilder(Services.loadBalancer("api", "web", 80, 30080))
            .editMetadata()
            .withUid("api-uid")
            .addToFinalizers(FederationKeys.FINALIZER)
            .endMetadata()
            .build();
    host.put(api);

    WorkResult result = run(EAST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded)
        .containsExactly("Warning " + EventReasons.MEMBER_NAMESPACE_UNREADABLE);
    assertThat(result.outcome()).isEqualTo(Outcome.RETRY_AFTER);
    assertThat(run(new ServiceKey("east", "api", "web")).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(eastWrites.calls).containsExactly("create api/web");
  }

  /** With memberScope namespaces only federation.namespaces counts, not the host's label. */
  @Test
  void withNamespacedMembersALabelledNamespaceThatIsNotListedReachesNoMember() {
    options
        .setMemberScope(FederationOptions.MemberScope.NAMESPACES)
        .setNamespaces(List.of("other"));
    optedIn = true;
    host.put(hostService());

    run(EAST_KEY);
    run(HOST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(hostWrites.calls).isEmpty();
    assertThat(host.events.recorded)
        .containsExactly("Warning " + EventReasons.FEDERATION_NOT_ALLOWED);
  }

  /**
   * A cold start: many copies of one missing namespace at once. The namespace is created once;
   * copies that come while it is being created wait for it instead of answering 404 and trying to
   * create it again (409).
   */
  @Test
  void copiesOfOneMissingNamespaceCreateItOnce() {
    Service web = intendedHostService();
    Service api =
        new ServiceBuilder(intendedHostService())
            .editMetadata()
            .withName("api")
            .withUid("host-api-uid")
            .endMetadata()
            .build();
    host.put(web);
    host.put(api);
    eastWrites.failOnce.put("create", new KubeApiException(404, "namespaces \"ns\" not found"));
    io.vertx.core.Promise<Void> namespace = io.vertx.core.Promise.promise();
    eastWrites.holdOnce.put("ensureNamespace", namespace);

    Future<WorkResult> first = reconcilerFor().run(EAST_KEY);
    Future<WorkResult> second = reconcilerFor().run(new ServiceKey("east", "ns", "api"));
    assertThat(first.isComplete() || second.isComplete()).isFalse();
    namespace.complete();

    assertThat(first.result().outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(second.result().outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(eastWrites.calls)
        .containsExactly(
            "create ns/web", "ensureNamespace ns/ns", "create ns/web", "create ns/api");
  }

  @Test
  void aForeignServiceOfTheSameNameIsNeverTouched() {
    host.put(hostService());
    east.put(Services.loadBalancer("ns", "web", 80, 31000));

    assertThat(run(EAST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded).containsExactly("Warning " + EventReasons.FEDERATION_CONFLICT);
  }

  @Test
  void anOwnedCopyThatMatchesCostsNoWrite() {
    Service svc = hostService();
    host.put(svc);
    east.put(copyOf(svc, "7"));

    run(EAST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded).isEmpty();
  }

  @Test
  void aHostChangeIsOneApplyOnTheCopysUid() {
    east.put(copyOf(hostService(), "7"));
    host.put(hostService(b -> b.editSpec().withSelector(Map.of("app", "web-v2")).endSpec()));

    assertThat(run(EAST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(eastWrites.calls).containsExactly("apply ns/web");
    assertThat(eastWrites.preconditions).containsExactly("apply copy-uid");
    assertThat(host.events.recorded).containsExactly("Normal UpdatedInCluster");
  }

  @Test
  void anApplyConflictIsOneWarningAndNoRetry() {
    east.put(copyOf(hostService(), "7"));
    host.put(hostService(b -> b.editSpec().withSessionAffinity("ClientIP").endSpec()));
    eastWrites.failOnce.put(
        "apply",
        new KubeApiException(
            409,
            "Apply failed with 1 conflict",
            List.of(".spec.sessionAffinity (conflict with \"kube-vip\" using v1)")));

    WorkResult result = run(EAST_KEY);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(eastWrites.calls).containsExactly("apply ns/web");
    assertThat(host.events.recorded).containsExactly("Warning " + EventReasons.COPY_FIELD_CONFLICT);
  }

  @Test
  void aCopyTheCacheShowsOlderThanPiersLastWriteIsNotAppliedAgain() {
    east.put(copyOf(hostService(), "7"));
    host.put(hostService(b -> b.editSpec().withSelector(Map.of("app", "web-v2")).endSpec()));
    run(EAST_KEY);

    // The cache still shows the copy at 7; Pier's apply made 2001.
    run(EAST_KEY);

    assertThat(eastWrites.calls).containsExactly("apply ns/web");
  }

  @Test
  void aCopyPlacementDropsGoesThroughTheDeletionGuard() {
    guard = new DeletionGuard(0, 0, Duration.ofMinutes(10), false, () -> now);
    placedIn("west");

    WorkResult result = run(EAST_KEY);

    assertThat(result.outcome()).isNotEqualTo(Outcome.SUCCESS);
    assertThat(result.delay()).isPositive();
    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded).containsExactly("Warning " + EventReasons.DELETION_HELD);
  }

  @Test
  void aCopyPlacementDropsIsDeletedByItsUidWithinTheGuard() {
    placedIn("west");

    run(EAST_KEY);

    assertThat(eastWrites.calls).containsExactly("delete ns/web");
    assertThat(eastWrites.preconditions).containsExactly("delete copy-uid");
    assertThat(host.events.recorded).containsExactly("Normal DeletedInCluster");
  }

  @Test
  void aHostServiceDeletedWithTheOrphanPolicyUnmarksItsCopies() {
    Service svc = deletedHostService(annotated(FederationKeys.DELETE_POLICY_ANNOTATION, "orphan"));
    host.put(svc);
    east.put(copyOf(svc, "7"));

    run(EAST_KEY);

    assertThat(eastWrites.calls).containsExactly("replace ns/web");
    assertThat(eastWrites.preconditions)
        .as("based on the version cached")
        .containsExactly("replace 7");
    assertThat(host.events.recorded).containsExactly("Normal OrphanedInCluster");
  }

  @Test
  void aCopyStuckTerminatingIsReportedAndNotDeletedAgain() {
    Service svc = deletedHostService(b -> b);
    host.put(svc);
    east.put(
        new ServiceBuilder(copyOf(svc, "7"))
            .editMetadata()
            .withDeletionTimestamp(Instant.ofEpochMilli(now).toString())
            .addToFinalizers("example.com/hold")
            .endMetadata()
            .build());

    run(EAST_KEY);
    WorkResult release = run(HOST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded).containsExactly("Warning " + EventReasons.COPY_TERMINATING);
    assertThat(enqueued).as("no member run to delete it again").isEmpty();
    assertThat(hostWrites.calls).as("the host Service waits for it").isEmpty();
    assertThat(release.delay()).isEqualTo(options.deleteTimeout());
  }

  @Test
  void aNamespaceNotOptedInChangesNothing() {
    optedIn = false;
    Service svc = hostService(b -> b.editSpec().withSelector(Map.of("app", "web-v2")).endSpec());
    host.put(svc);
    east.put(copyOf(hostService(), "7"));

    run(EAST_KEY);
    run(HOST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(hostWrites.calls).isEmpty();
    assertThat(host.events.recorded)
        .containsExactly("Warning " + EventReasons.FEDERATION_NOT_ALLOWED);
  }

  @Test
  void hostWritesCarryTheVersionReadThenEachTheVersionTheLastOneMade() {
    host.put(hostService());
    // East's copy, just made by Pier: its member's side proves it, and the annotation records it.
    copies =
        (m, ns, name) ->
            Future.succeededFuture(
                new CopyState(
                    true,
                    null,
                    true,
                    false,
                    new LbStatus(
                        List.of(
                            new LbIngress(
                                "203.0.113.5",
                                null,
                                "Proxy",
                                List.of(new LbIngress.PortStatus(80, "TCP", null))))),
                    false,
                    "created-uid",
                    true,
                    null,
                    false));

    assertThat(run(HOST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(hostWrites.calls)
        .containsExactly("addFinalizer ns/web", "annotate ns/web", "status ns/web");
    assertThat(hostWrites.preconditions)
        .containsExactly("addFinalizer 42", "annotate 2001", "status 2002");
    assertThat(hostWrites.lastAnnotations)
        .as("the finalizer came with an empty record; the copy's uid joins it")
        .containsEntry(FederationKeys.COPY_UIDS_ANNOTATION, "{\"east\":\"created-uid\"}");
    assertThat(hostWrites.lastStatus.ingress())
        .as("ipMode and ports as the member reports them")
        .containsExactly(
            new LbIngress(
                "203.0.113.5", null, "Proxy", List.of(new LbIngress.PortStatus(80, "TCP", null))));
  }

  /**
   * A cold start: east's load balancer is there, west's copy has none yet. The host waits for it
   * (at most federation.aggregateWait), then writes annotation and status once with both.
   */
  @Test
  void aFirstAddressWaitsForAReadyMemberWhoseLoadBalancerIsOnItsWay() {
    FakeCluster west = new FakeCluster("west");
    west.federationWrites = new FakeFederationWrites();
    FakeMembers.add(members, west, Map.of());
    Service svc = finalizedHostService();
    host.put(svc);
    east.put(servingCopyOf(svc));
    west.put(copyOf(svc, "8"));

    WorkResult waiting = run(HOST_KEY);

    assertThat(hostWrites.calls).isEmpty();
    assertThat(waiting.outcome()).isEqualTo(Outcome.RETRY_AFTER);
    assertThat(waiting.delay()).isEqualTo(options.aggregateWait());

    west.put(
        new ServiceBuilder(copyOf(svc, "9"))
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("198.51.100.9")
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build());
    host.put(
        new ServiceBuilder(svc)
            .editMetadata()
            .addToFinalizers(FederationKeys.FINALIZER)
            .endMetadata()
            .build());
    assertThat(run(HOST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(hostWrites.calls).containsExactly("annotate ns/web", "status ns/web");
    assertThat(hostWrites.lastStatus.ingress())
        .extracting(LbIngress::ip)
        .containsExactly("198.51.100.9", "203.0.113.5");
  }

  /** An unreachable member is never waited for: the addresses there are are written at once. */
  @Test
  void anUnreachableMemberIsNotWaitedFor() {
    FakeCluster west = new FakeCluster("west");
    west.federationWrites = new FakeFederationWrites();
    Member westMember = FakeMembers.add(members, west, Map.of());
    FakeMembers.ready(westMember, false);
    Service svc = finalizedHostService();
    host.put(svc);
    east.put(servingCopyOf(svc));

    assertThat(run(HOST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(hostWrites.calls).containsExactly("annotate ns/web", "status ns/web");
  }

  /**
   * Scale-out: a member's copy is read from the replica that owns the member. While that read fails
   * (the owner moving), nothing is written: unknown is not unhealthy.
   */
  @Test
  void aCopyThatCannotBeReadFromItsOwnerChangesNothing() {
    Service svc =
        hostService(b -> b.editMetadata().addToFinalizers(FederationKeys.FINALIZER).endMetadata());
    host.put(svc);
    east.put(servingCopyOf(svc));
    copies = (m, ns, name) -> Future.failedFuture("no handlers for pier.federation.copies.east");

    WorkResult waiting = run(HOST_KEY);

    assertThat(hostWrites.calls).as("no annotation, status or names").isEmpty();
    assertThat(waiting.outcome()).isEqualTo(Outcome.RETRY_AFTER);
    assertThat(waiting.delay()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aCopyReadFromItsOwnerIsAggregatedLikeALocalOne() {
    host.put(finalizedHostService());
    CopyState remote =
        new CopyState(
            true,
            new Topology("r", List.of("z")),
            true,
            false,
            new LbStatus(List.of(LbIngress.ip("192.0.2.44"))),
            true,
            "copy-uid",
            false,
            null,
            false);
    copies = (m, ns, name) -> Future.succeededFuture(remote);

    assertThat(run(HOST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(hostWrites.calls).containsExactly("annotate ns/web", "status ns/web");
    assertThat(hostWrites.lastStatus.ingress())
        .extracting(LbIngress::ip)
        .containsExactly("192.0.2.44");
  }

  /**
   * Every placed member unreachable: the status and names are held as last seen, and the host
   * Service says since when (for `pier status`), in the annotation write; the hold's end removes
   * it.
   */
  @Test
  void aHoldIsRecordedOnTheHostServiceAndClearedWhenItEnds() {
    FakeCluster west = new FakeCluster("west");
    west.federationWrites = new FakeFederationWrites();
    Member westMember = FakeMembers.add(members, west, Map.of());
    Service svc =
        hostService(b -> b.editMetadata().addToFinalizers(FederationKeys.FINALIZER).endMetadata());
    host.put(svc);
    east.put(servingCopyOf(svc));
    west.put(servingCopyOf(svc));
    FakeMembers.ready(eastMember, false);
    FakeMembers.ready(westMember, false);

    run(HOST_KEY);

    assertThat(hostWrites.calls).contains("annotate ns/web");
    String since = hostWrites.lastAnnotations.get(FederationKeys.NAMES_HELD_ANNOTATION);
    assertThat(since).as("when the hold began").isNotNull();
    assertThat(Instant.parse(since)).isBefore(Instant.now().plusSeconds(1));

    hostWrites.calls.clear();
    host.put(
        new ServiceBuilder(svc)
            .editMetadata()
            .addToAnnotations(FederationKeys.NAMES_HELD_ANNOTATION, since)
            .endMetadata()
            .build());
    FakeMembers.ready(eastMember, true);
    FakeMembers.ready(westMember, true);

    run(HOST_KEY);

    assertThat(hostWrites.calls).contains("annotate ns/web");
    assertThat(hostWrites.lastAnnotations)
        .containsEntry(FederationKeys.NAMES_HELD_ANNOTATION, null);
  }

  /** A deleted host Service waits for a member whose copy cannot be read, as for an unready one. */
  @Test
  void aReleaseWaitsForAMemberWhoseCopyCannotBeRead() {
    host.put(deletedHostService(b -> b));
    copies = (m, ns, name) -> Future.failedFuture("timed out");

    WorkResult waiting = run(HOST_KEY);

    assertThat(hostWrites.calls).isEmpty();
    assertThat(waiting.outcome()).isEqualTo(Outcome.RETRY_AFTER);
  }

  @Test
  void aHostServiceWhoseCopiesAreGoneIsReleasedAtTheVersionRead() {
    host.put(deletedHostService(b -> b));

    assertThat(run(HOST_KEY).outcome()).isEqualTo(Outcome.SUCCESS);

    assertThat(hostWrites.calls).containsExactly("release ns/web");
    assertThat(hostWrites.preconditions).containsExactly("release 42");
  }

  @Test
  void theNamesAreFedThroughTheDnsPortByEachPlacedMembersCopy() {
    names = new RecordedNames();
    Service svc = finalizedHostService();
    host.put(svc);
    east.put(servingCopyOf(svc));

    run(HOST_KEY);

    assertThat(published)
        .containsExactly(
            "serving east [203.0.113.5] healthy=false",
            "sync " + HOST_KEY + " federated=true serving=1");
  }

  @Test
  void aDeletedHostServicesNamesGoBeforeItsFinalizer() {
    names = new RecordedNames();
    host.put(deletedHostService(b -> b));

    run(HOST_KEY);

    assertThat(published).containsExactly("sync " + HOST_KEY + " federated=false serving=0");
    assertThat(hostWrites.calls).containsExactly("release ns/web");
  }

  @Test
  void aMemberLeavingKeepsItsCopiesWithoutPiersMarksByDefault() {
    runLeaving(LeavePolicy.ORPHAN);

    assertThat(eastWrites.calls).containsExactly("replace ns/web");
    assertThat(host.events.recorded).containsExactly("Normal OrphanedInCluster");
  }

  @Test
  void aMemberLeavingWithItsCopiesDeletedIsAskedForAndNotHeldByTheGuard() {
    guard = new DeletionGuard(0, 0, Duration.ofMinutes(10), false, () -> now);
    runLeaving(LeavePolicy.DELETE_COPIES);

    assertThat(eastWrites.calls).containsExactly("delete ns/web");
    assertThat(host.events.recorded).containsExactly("Normal DeletedInCluster");
  }

  /** The host Service with the finalizer and this record of its copies. */
  private static Service withRecord(String record) {
    return hostService(
        b ->
            b.editMetadata()
                .addToFinalizers(FederationKeys.FINALIZER)
                .addToAnnotations(FederationKeys.COPY_UIDS_ANNOTATION, record)
                .endMetadata());
  }

  /** {@code of} as Pier's copy would be, but with another uid: what a tenant can make there. */
  private Service withUid(Service copy, String uid) {
    return new ServiceBuilder(copy).editMetadata().withUid(uid).endMetadata().build();
  }

  /**
   * A tenant of the member made a Service with the federation's marks and a load balancer of its
   * own. The record names another uid: it is never written, its address reaches neither the status
   * nor the names, and the host Service gets a Warning.
   */
  @Test
  void aMarkedServiceWhoseUidIsNotRecordedIsNeverWrittenNorAggregated() {
    options.setAggregateWait(Duration.ZERO);
    names = new RecordedNames();
    Service svc = finalizedHostService();
    host.put(svc);
    east.put(withUid(servingCopyOf(svc), "tenant-uid"));

    run(EAST_KEY);
    run(HOST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded).containsExactly("Warning " + EventReasons.FEDERATION_CONFLICT);
    assertThat(hostWrites.calls).containsExactly("annotate ns/web");
    assertThat(hostWrites.lastAnnotations)
        .as("east's recorded copy is gone; the tenant's is not recorded")
        .containsEntry(FederationKeys.COPY_UIDS_ANNOTATION, "{\"west\":\"copy-uid\"}")
        .doesNotContainKey(FederationKeys.INGRESSES_ANNOTATION);
    assertThat(hostWrites.lastStatus).as("no status written").isNull();
    assertThat(published).containsExactly("sync " + HOST_KEY + " federated=true serving=0");
  }

  /** The copy Pier made is Pier's at once, and the host key records its uid. */
  @Test
  void aCopyPierMadeIsRecordedByTheHostKey() {
    Service svc = intendedHostService();
    host.put(svc);

    run(EAST_KEY);
    assertThat(eastWrites.calls).containsExactly("create ns/web");
    // The member's cache shows the copy as created, before the host's record names it.
    east.put(withUid(servingCopyOf(svc), "created-uid"));
    run(EAST_KEY);
    run(HOST_KEY);

    assertThat(eastWrites.calls).as("Pier's copy, in sync: no write").hasSize(1);
    assertThat(host.events.recorded).containsExactly("Normal CreatedInCluster");
    assertThat(hostWrites.lastAnnotations)
        .containsEntry(FederationKeys.COPY_UIDS_ANNOTATION, "{\"east\":\"created-uid\"}");
    assertThat(hostWrites.lastStatus.ingress())
        .extracting(LbIngress::ip)
        .containsExactly("203.0.113.5");
  }

  /**
   * Upgrade: a Service the earlier version federated has the finalizer and no record. Its marked
   * copies count as before and are recorded once; a marked Service made after that is not Pier's.
   */
  @Test
  void theCopiesOfAServiceAnEarlierVersionFederatedAreAdoptedOnce() {
    Service earlier =
        hostService(
            b ->
                b.editMetadata()
                    .addToFinalizers(FederationKeys.FINALIZER)
                    .removeFromAnnotations(FederationKeys.COPY_UIDS_ANNOTATION)
                    .endMetadata());
    host.put(earlier);
    east.put(servingCopyOf(earlier));

    run(EAST_KEY);
    run(HOST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded).isEmpty();
    assertThat(hostWrites.lastAnnotations)
        .containsEntry(FederationKeys.COPY_UIDS_ANNOTATION, "{\"east\":\"copy-uid\"}");
    assertThat(hostWrites.lastStatus.ingress())
        .extracting(LbIngress::ip)
        .containsExactly("203.0.113.5");

    host.put(withRecord("{\"east\":\"copy-uid\"}"));
    east.put(withUid(servingCopyOf(earlier), "tenant-uid"));
    run(EAST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(host.events.recorded).containsExactly("Warning " + EventReasons.FEDERATION_CONFLICT);
  }

  /**
   * A release that gives up on an unreachable member keeps the uid of the copy there after the host
   * Service is gone: the copy is deleted when the member is back, and then its entry goes.
   */
  @Test
  void aCopyLeftBehindByTheDeleteTimeoutStaysProvablyPiersUntilItIsGone() {
    Service svc =
        hostService(
            b ->
                b.editMetadata()
                    .addToFinalizers(FederationKeys.FINALIZER)
                    .withDeletionTimestamp(
                        Instant.ofEpochMilli(now).minus(options.deleteTimeout()).toString())
                    .endMetadata());
    host.put(svc);
    east.put(copyOf(svc, "7"));
    FakeMembers.ready(eastMember, false);

    run(HOST_KEY);

    assertThat(hostWrites.calls)
        .containsExactly("writeLeftCopies pier/pier-left-copies-fed", "release ns/web");
    assertThat(hostWrites.leftCopies)
        .containsExactly(Map.entry("pier-left-copies-fed", Map.of("east.ns.web", "copy-uid")));

    host.services.clear();
    FakeMembers.ready(eastMember, true);
    run(EAST_KEY);

    assertThat(eastWrites.calls).containsExactly("delete ns/web");
    assertThat(east.events.recorded)
        .containsExactly("Normal " + EventReasons.DELETED_ORPHANED_COPY);

    east.services.clear();
    run(HOST_KEY);

    assertThat(hostWrites.leftCopies).as("its entry went with the copy").isEmpty();
  }

  /** A marked Service whose host Service is gone, and that no record names: left alone. */
  @Test
  void aMarkedServiceNoRecordNamesIsNeverDeleted() {
    east.put(copyOf(hostService(), "7"));

    run(EAST_KEY);
    run(HOST_KEY);

    assertThat(eastWrites.calls).isEmpty();
    assertThat(hostWrites.calls).isEmpty();
    assertThat(hostWrites.leftCopiesReads)
        .as("the record of copies left behind was asked")
        .isPositive();
  }

  /** East, with a copy Pier owns of the federated Service, leaves the federation as policy says. */
  private void runLeaving(LeavePolicy policy) {
    Service svc = hostService();
    host.put(svc);
    east.put(copyOf(svc, "7"));
    FakeMembers.leave(eastMember, policy);
    run(EAST_KEY);
  }
}
