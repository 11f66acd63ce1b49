package dev.pier.federation.members;

import dev.pier.federation.ClusterHealthState;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.LeavePolicy;
import dev.pier.federation.MemberInfo;
import dev.pier.kube.Cluster;
import dev.pier.model.ClusterSpec;
import io.vertx.core.Future;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation's member clusters, configured or joined at runtime. Joins and leaves happen on the
 * federation's context; reads are safe from any thread.
 */
public final class Members implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Members.class);

  /** Told of joins, leaves and readiness changes, on the federation's context. */
  public interface Listener {
    void joined(Member member);

    /** The member started leaving: its copies are to be orphaned or deleted. */
    void left(Member member);

    /** The member's Secret changed: the old connection is closed, a new one joins. */
    void replaced(Member member);

    /** The member's placement labels, region or zones changed; its connection stays. */
    void respecified(Member member);

    void readinessChanged(Member member);
  }

  /** Told of every probe's result once readiness is applied, on the federation's context. */
  interface ProbeObserver {
    void probed(Member member, boolean ok, String failure);
  }

  /** Connects a member that joins through a Secret, and disconnects it when it goes. */
  @FunctionalInterface
  public interface Connector {
    /** Builds the member's client and caches; throws naming what is wrong. */
    Cluster connect(ClusterSpec spec);

    /**
     * Checks what {@link #connect} would refuse, before a member already connected is touched: a
     * bad edit of its Secret leaves it connected as it was.
     */
    default void check(ClusterSpec spec) {}

    /**
     * What {@link #connect} gives the member below what its Secret asked for (a provider setting
     * lowered to Pier's ceiling for members), one phrase each naming the setting, never a
     * credential; empty when nothing is.
     */
    default List<String> lowered(ClusterSpec spec) {
      return List.of();
    }

    /**
     * Why the member's provider endpoint is refused by the egress rule as its host name resolves
     * now, or null (also when it cannot be resolved now: unknown is not refused). Each request is
     * vetted again; this only tells the Secret's writer. Never fails.
     */
    default Future<String> refusedAsResolved(ClusterSpec spec) {
      return Future.succeededFuture(null);
    }

    /** Undoes {@link #connect}: the member left, or its Secret changed how to reach it. */
    default void disconnect(Cluster cluster) {
      cluster.close();
    }
  }

  private final FederationOptions options;
  private final Connector connect;
  private final Map<String, Member> byName = new ConcurrentHashMap<>();
  // Members from the configuration: a Secret never replaces or removes them.
  private final Map<String, Boolean> configured = new ConcurrentHashMap<>();
  private Listener listener;
  private ProbeObserver probeObserver;

  /**
   * @param connect builds the client and caches of a member that joins at runtime
   */
  public Members(FederationOptions options, Connector connect) {
    this.options = options;
    this.connect = connect;
  }

  /** Adds a configured member; called before the federation starts. */
  public void addConfigured(ClusterSpec spec, Cluster cluster) {
    configured.put(spec.name(), true);
    byName.put(spec.name(), member(spec, cluster));
  }

  /** Adds a member already built (a test's member on a fake cluster). */
  void add(Member member) {
    configured.put(member.name(), true);
    byName.put(member.name(), member);
  }

  public void listen(Listener listener) {
    this.listener = listener;
  }

  /** See {@link Connector#refusedAsResolved}. */
  Future<String> refusedAsResolved(ClusterSpec spec) {
    return connect.refusedAsResolved(spec);
  }

  /** A member joins (or changes) through a Secret. Returns a problem, or null. */
  String join(ClusterSpec spec) {
    if (configured.containsKey(spec.name())) {
      return "cluster " + spec.name() + " is configured in the config file; the Secret is ignored";
    }
    Member old = byName.get(spec.name());
    if (old != null && old.spec().equals(spec) && !old.leaving()) {
      return null;
    }
    try {
      connect.check(spec);
    } catch (RuntimeException e) {
      return "cluster " + spec.name() + ": " + e.getMessage();
    }
    if (old != null) {
      String problem = serverChange(old.spec(), spec);
      if (problem != null) {
        return problem;
      }
      if (!old.leaving() && sameConnection(old.spec(), spec)) {
        old.respec(spec);
        log.info("Cluster {}: placement labels or topology changed", spec.name());
        if (listener != null) {
          listener.respecified(old);
        }
        return null;
      }
      // A changed Secret reconnects at once: the copies stay, they belong to the same member.
      byName.remove(spec.name(), old);
      if (listener != null) {
        listener.replaced(old);
      }
      old.endpoints().stop();
      connect.disconnect(old.cluster());
    }
    Cluster cluster;
    try {
      cluster = connect.connect(spec);
    } catch (RuntimeException e) {
      return "cluster " + spec.name() + ": cannot build a client: " + e.getMessage();
    }
    Member m = member(spec, cluster);
    byName.put(spec.name(), m);
    log.info(
        "Cluster {}: joined the federation through its Secret ({})", spec.name(), cluster.url());
    if (listener != null) {
      listener.joined(m);
    }
    return null;
  }

  /**
   * What a member joining with {@code spec} gets below what its Secret asked for; see {@link
   * Connector#lowered}.
   */
  List<String> lowered(ClusterSpec spec) {
    try {
      return connect.lowered(spec);
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  /** Whether two specs reach the member the same way: only labels, region or zones differ. */
  private static boolean sameConnection(ClusterSpec a, ClusterSpec b) {
    return Objects.equals(a.credentials(), b.credentials())
        && a.context().equals(b.context())
        && a.kubeconfig().equals(b.kubeconfig())
        && a.inCluster() == b.inCluster()
        && a.loadBalancers() == b.loadBalancers()
        && Objects.equals(a.provider(), b.provider())
        && a.federation() == b.federation();
  }

  /**
   * A member is never moved to another API server by a Secret edit: whoever can write the Secret
   * could point it at a server that feeds chosen addresses into the federation. The member stays on
   * its server until its Secret is deleted and it joins again.
   */
  private static String serverChange(ClusterSpec old, ClusterSpec changed) {
    if (old.credentials() == null
        || changed.credentials() == null
        || old.credentials().server().equals(changed.credentials().server())) {
      return null;
    }
    return "data.kubeconfig: the server of cluster "
        + old.name()
        + " changed; Pier stays connected to "
        + old.credentials().server()
        + ". To move a member to another API server, delete its Secret and join it again";
  }

  /**
   * A member joined through a Secret starts leaving (its Secret went, and the grace passed): it
   * leaves every placement at once, so its names go, and the copies Pier owns there are orphaned or
   * deleted as {@code policy} says; {@link #forget} then closes it.
   */
  void leave(String name, LeavePolicy policy) {
    if (configured.containsKey(name)) {
      return;
    }
    Member m = byName.get(name);
    if (m == null || m.leaving()) {
      return;
    }
    m.markLeaving(System.currentTimeMillis(), policy);
    log.info(
        "Cluster {}: leaving the federation; {} the copies Pier owns there",
        name,
        policy == LeavePolicy.DELETE_COPIES ? "deleting" : "orphaning (leaving in place)");
    if (listener != null) {
      listener.left(m);
    }
  }

  /** Forgets a member that left: its informers stop, its client closes. */
  public void forget(Member m) {
    if (byName.remove(m.name(), m)) {
      log.info("Cluster {}: left the federation", m.name());
      m.endpoints().stop();
      connect.disconnect(m.cluster());
    }
  }

  void observeProbes(ProbeObserver observer) {
    this.probeObserver = observer;
  }

  void probed(Member m, boolean ok, String failure) {
    if (probeObserver != null && byName.get(m.name()) == m) {
      probeObserver.probed(m, ok, failure);
    }
  }

  void readinessChanged(Member m) {
    if (listener != null && byName.get(m.name()) == m) {
      listener.readinessChanged(m);
    }
  }

  /** A member's health as the options count it. */
  ClusterHealthState health() {
    return new ClusterHealthState(options.successThreshold(), options.failureThreshold());
  }

  private Member member(ClusterSpec spec, Cluster cluster) {
    return new Member(spec, cluster, health(), new ReadyEndpoints());
  }

  public Member get(String name) {
    return byName.get(name);
  }

  public Collection<Member> all() {
    return byName.values();
  }

  /** Every member, ready or not, that is not leaving: what placement is computed over. */
  public List<MemberInfo> infos() {
    return byName.values().stream().filter(m -> !m.leaving()).map(Member::info).toList();
  }

  @Override
  public void close() {
    for (Member m : byName.values()) {
      m.endpoints().stop();
      if (!configured.containsKey(m.name())) {
        connect.disconnect(m.cluster());
      }
    }
  }
}
