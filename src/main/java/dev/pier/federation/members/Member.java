package dev.pier.federation.members;

import dev.pier.federation.ClusterHealthState;
import dev.pier.federation.LeavePolicy;
import dev.pier.federation.MemberInfo;
import dev.pier.kube.Cluster;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.ClusterSpec;
import dev.pier.nodes.Topology;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.function.BiConsumer;

/**
 * A member cluster of the federation: its configuration, its client and caches, its health and its
 * ready endpoints. Work for a member runs only while it is ready and its Service cache has synced;
 * everything else reads its caches and never waits on it.
 */
public final class Member {
  private volatile ClusterSpec spec;
  private final ClusterAccess access;
  // The connection behind access: informers to start, a client to close; null on a fake.
  private final Cluster cluster;
  private final ClusterHealthState health;
  private final ReadyEndpoints endpoints;
  private volatile boolean ready;
  private volatile long leavingSince = -1;
  private volatile LeavePolicy leavePolicy = LeavePolicy.ORPHAN;
  // Not reachable since (epoch millis): since it was added, until a probe first passes.
  private volatile long unreadySince = System.currentTimeMillis();

  Member(ClusterSpec spec, Cluster cluster, ClusterHealthState health, ReadyEndpoints endpoints) {
    this(spec, cluster, cluster, health, endpoints);
  }

  /** A member on a cluster that is not a connection (a test's fake): nothing to start or close. */
  Member(ClusterSpec spec, ClusterAccess access, ClusterHealthState health) {
    this(spec, access, null, health, new ReadyEndpoints());
  }

  private Member(
      ClusterSpec spec,
      ClusterAccess access,
      Cluster cluster,
      ClusterHealthState health,
      ReadyEndpoints endpoints) {
    this.spec = spec;
    this.access = access;
    this.cluster = cluster;
    this.health = health;
    this.endpoints = endpoints;
  }

  public String name() {
    return spec.name();
  }

  public ClusterSpec spec() {
    return spec;
  }

  /** The member's client and informers, for starting and closing them. */
  public Cluster cluster() {
    return cluster;
  }

  /** What runs read and write in the member: its caches, the federation's writes, its Events. */
  public ClusterAccess access() {
    return access;
  }

  /** What placement selects on. */
  public MemberInfo info() {
    return new MemberInfo(spec.name(), spec.labels());
  }

  /**
   * Leaving the federation (its Secret went, and the grace passed): its copies are being orphaned
   * or deleted, as {@link #leavePolicy()} says.
   */
  public boolean leaving() {
    return leavingSince >= 0;
  }

  /** What leaving does to the copies Pier owns here. */
  public LeavePolicy leavePolicy() {
    return leavePolicy;
  }

  /** When it started leaving (epoch millis), or -1. */
  public long leavingSince() {
    return leavingSince;
  }

  void markLeaving(long now, LeavePolicy policy) {
    leavePolicy = policy;
    leavingSince = now;
  }

  /** Placement labels, region or zones changed; the connection stays as it is. */
  void respec(ClusterSpec changed) {
    spec = changed;
  }

  /** Ready per the health thresholds; safe to read from any thread. */
  public boolean ready() {
    return ready;
  }

  /** When it last became unreachable (epoch millis); meaningless while ready. */
  public long unreadySince() {
    return unreadySince;
  }

  /** Whether the member's copy of namespace/name has ready endpoints (false until known). */
  public boolean hasReadyEndpoints(String namespace, String name) {
    return endpoints.ready(namespace, name);
  }

  ReadyEndpoints endpoints() {
    return endpoints;
  }

  /**
   * Starts reading the member's endpoints (once; the API it serves is found first, so the member
   * must be reachable); {@code changed} is told namespace and name of every Service whose endpoints
   * changed.
   */
  public Future<Void> startEndpoints(Context ctx, BiConsumer<String, String> changed) {
    return endpoints.start(cluster, ctx, changed);
  }

  /** Records a probe result on the prober's context; true when readiness changed. */
  boolean recordProbe(boolean ok) {
    boolean changed = health.record(ok);
    ready = health.ready();
    if (changed && !ready) {
      unreadySince = System.currentTimeMillis();
    }
    return changed;
  }

  /** Region and zones: the configured ones, else read from the member's nodes. */
  public Topology topology() {
    return Topology.ofNodes(access.nodes(), spec.region(), spec.zones());
  }
}
