package dev.pier.federation.sync;

import dev.pier.dns.publish.DataPathProber;
import dev.pier.federation.CopyState;
import dev.pier.federation.CopyTrust;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.FederationScope;
import dev.pier.federation.MemberServices;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.ServiceKey;
import dev.pier.policy.DeletionGuard;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * One federated Service's runs, along their two reasons. A key of the host cluster aggregates
 * ({@link HostAggregateReconciler}): it keeps the federation's finalizer, computes the status and
 * the ingress annotation from the members' caches (never calling a member), and releases the host
 * Service once its copies are gone ({@link HostRelease}). A key of member X propagates ({@link
 * MemberCopyReconciler}): it makes X's copy match the host Service, or deletes the copy Pier owns
 * there when X left the Service's placement.
 *
 * <p>Both halves log under this class's name: one logger for the federation's runs.
 */
final class FederationReconciler {
  /** What a federation run asks for when it is to run again: the whole run. */
  static final Set<WorkKind> RUN = Set.of(WorkKind.RECONCILE);

  /** A write that met a newer version (409) runs again this soon, on what the object is now. */
  static final Duration CONFLICT_RETRY = Duration.ofSeconds(1);

  /**
   * With memberScope namespaces: how soon a copy waits again for a namespace the member lacks (or
   * has no Role in), which only someone else can make.
   */
  static final Duration MISSING_NAMESPACE_RETRY = MemberCopyReconciler.MISSING_NAMESPACE_RETRY;

  private final ClusterAccess host;
  private final Members members;
  private final FederationOptions options;
  private final FederationScope scope;
  private final HostAggregateReconciler hostSide;
  private final MemberCopyReconciler memberSide;
  private final ProvenCopies proven = new ProvenCopies();

  /**
   * @param ctx the context writes complete on
   * @param enqueue runs a key (a release runs the members' keys that delete their copies)
   * @param dns publishes the federated Services' names, or null without DNS
   * @param heldNames the Services whose names are held as last seen, for the metric
   * @param guard holds copy deletions that no one asked for (placement changes, copies of host
   *     Services that are gone) beyond its limit
   * @param labelledNamespace whether a host namespace is labelled into the federation
   * @param copies where the aggregate reads a member's copy; null: this replica's caches
   */
  FederationReconciler(
      Context ctx,
      ClusterAccess host,
      Members members,
      FederationOptions options,
      Consumer<ServiceKey> enqueue,
      LongSupplier clock,
      FederatedNames dns,
      HeldNames heldNames,
      DeletionGuard guard,
      Predicate<String> labelledNamespace,
      CopyReader copies) {
    this(
        ctx,
        host,
        members,
        options,
        enqueue,
        clock,
        dns,
        heldNames,
        guard,
        labelledNamespace,
        copies,
        null);
  }

  /**
   * As above, the Services that ask for it losing the load-balancer addresses that {@code probes}
   * says stopped answering (null: none probes).
   */
  FederationReconciler(
      Context ctx,
      ClusterAccess host,
      Members members,
      FederationOptions options,
      Consumer<ServiceKey> enqueue,
      LongSupplier clock,
      FederatedNames dns,
      HeldNames heldNames,
      DeletionGuard guard,
      Predicate<String> labelledNamespace,
      CopyReader copies,
      DataPathProber probes) {
    this.host = host;
    this.members = members;
    this.options = options;
    this.scope = new FederationScope(options, labelledNamespace);
    ServiceCopies read = new ServiceCopies(members, copies == null ? this::localCopy : copies);
    ServingNames names = new ServingNames(members, dns, probes, host);
    LeftCopies left = new LeftCopies(ctx, host, options, read);
    HostRelease release =
        new HostRelease(ctx, host, members, options, read, names, left, enqueue, clock);
    this.hostSide =
        new HostAggregateReconciler(
            ctx, host, members, options, scope, clock, read, names, heldNames, release);
    this.memberSide =
        new MemberCopyReconciler(
            ctx,
            host,
            members,
            options,
            scope,
            guard,
            this::marked,
            proven,
            left,
            this::ownedCopies);
  }

  Future<WorkResult> run(ServiceKey key) {
    return key.cluster().equals(host.name()) ? hostSide.run(key) : memberSide.run(key);
  }

  boolean federated(Service svc) {
    return scope.federated(svc);
  }

  /** Whether a member Service carries this federation's marks from this host: no proof. */
  boolean marked(Service s) {
    return MemberServices.marked(s, options.name(), host.identity().uid());
  }

  /** Whether the member's Service is Pier's copy, as far as the caches and this process know. */
  private boolean ours(String member, Service s) {
    String ns = s.getMetadata().getNamespace();
    String name = s.getMetadata().getName();
    return CopyTrust.whose(
            member, s, marked(s), host.service(ns, name), proven.uid(member, ns, name))
        == MemberServices.Ownership.OWNED;
  }

  /** How many copies Pier owns in every member: what the deletion guard's share is of. */
  private int ownedCopies() {
    int n = 0;
    for (Member m : members.all()) {
      n += ownedCopies(m);
    }
    return n;
  }

  /** How many copies Pier owns in the member, as its caches in this replica show them. */
  int ownedCopies(Member m) {
    return CopyReader.owned(m, this::ours);
  }

  /** The member's copy as its caches in this replica show it. */
  Future<CopyState> localCopy(Member m, String namespace, String name) {
    return Future.succeededFuture(localState(m, namespace, name));
  }

  private CopyState localState(Member m, String namespace, String name) {
    return CopyReader.local(
        m, namespace, name, this::marked, proven.uid(m.name(), namespace, name));
  }

  /** What this replica's caches say of its members' copies, for the other replicas to read. */
  CopyReader.Local local() {
    return new CopyReader.Local() {
      @Override
      public CopyState state(Member member, String namespace, String name) {
        return localState(member, namespace, name);
      }

      @Override
      public int owned(Member member) {
        return ownedCopies(member);
      }
    };
  }
}
