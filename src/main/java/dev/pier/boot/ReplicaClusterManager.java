package dev.pier.boot;

import io.vertx.core.Completable;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.spi.cluster.NodeInfo;
import io.vertx.core.spi.cluster.RegistrationInfo;
import io.vertx.ext.cluster.infinispan.InfinispanClusterManager;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.configuration.global.ShutdownHookBehavior;
import org.infinispan.configuration.parsing.ConfigurationBuilderHolder;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.notifications.Listener;
import org.infinispan.notifications.cachemanagerlistener.annotation.Merged;
import org.infinispan.notifications.cachemanagerlistener.event.MergeEvent;
import org.infinispan.remoting.transport.jgroups.JGroupsTransport;
import org.jgroups.JChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Vert.x's Infinispan cluster manager over Pier's own channel ({@link ReplicaChannel}): the caches
 * Vert.x needs (its subscriptions, node and HA information replicated, its maps distributed), the
 * cache manager started when the replica joins and stopped when it leaves, both off the event loop.
 *
 * <p>When clusters merge (replicas that started together and found no one within the join timeout,
 * or the two sides of a healed partition), Infinispan keeps one side's copy of the replicated
 * caches: the other side's node information and event-bus subscriptions are gone, and no replica
 * reaches its handlers ("Not a member of the cluster"). Each replica knows its own, so after a
 * merge it puts them back, in passes at {@link #PUT_BACK_AFTER} (the merge's own transfer of the
 * caches ends some time after the view that announces it), as Vert.x's Hazelcast cluster manager
 * does after a merge.
 */
final class ReplicaClusterManager extends InfinispanClusterManager {
  private static final Logger log = LoggerFactory.getLogger(ReplicaClusterManager.class);

  /** When, in milliseconds after a merge's view, this replica puts its own entries back. */
  static final long[] PUT_BACK_AFTER = {1_000, 2_000, 4_000, 8_000, 16_000, 32_000};

  private final DefaultCacheManager caches;
  private Vertx vertx;
  private volatile boolean leaving;
  // This replica's cluster-wide subscriptions, by address: what it puts back after a merge.
  private final Map<String, Set<RegistrationInfo>> own = new HashMap<>();

  private ReplicaClusterManager(DefaultCacheManager caches) {
    super(caches);
    this.caches = caches;
  }

  static ReplicaClusterManager over(JChannel channel, String clusterName) {
    ClassLoader loader = ReplicaClusterManager.class.getClassLoader();
    GlobalConfigurationBuilder global = new GlobalConfigurationBuilder().classLoader(loader);
    global
        .transport()
        .clusterName(clusterName)
        .nodeName(channel.name())
        .transport(new JGroupsTransport(channel));
    global.shutdown().hookBehavior(ShutdownHookBehavior.DONT_REGISTER);
    global.defaultCacheName("distributed-cache");
    ConfigurationBuilderHolder holder = new ConfigurationBuilderHolder(loader, global);
    holder.newConfigurationBuilder("distributed-cache").clustering().cacheMode(CacheMode.DIST_SYNC);
    for (String replicated : new String[] {"__vertx.subs", "__vertx.haInfo", "__vertx.nodeInfo"}) {
      holder.newConfigurationBuilder(replicated).clustering().cacheMode(CacheMode.REPL_SYNC);
    }
    holder
        .newConfigurationBuilder("__vertx.distributed.cache.configuration")
        .template(true)
        .clustering()
        .cacheMode(CacheMode.DIST_SYNC);
    return new ReplicaClusterManager(new DefaultCacheManager(holder, false));
  }

  @Override
  public void init(Vertx vertx) {
    super.init(vertx);
    this.vertx = vertx;
  }

  @Override
  public void join(Completable<Void> promise) {
    vertx
        .<Void>executeBlocking(
            () -> {
              caches.start();
              return null;
            },
            false)
        .onComplete(
            (started, failure) -> {
              if (failure != null) {
                promise.fail(failure);
              } else {
                caches.addListener(new MergeListener());
                super.join(promise);
              }
            });
  }

  @Override
  public void addRegistration(String address, RegistrationInfo info, Completable<Void> promise) {
    if (!info.localOnly()) {
      synchronized (own) {
        own.computeIfAbsent(address, a -> new HashSet<>()).add(info);
      }
    }
    super.addRegistration(address, info, promise);
  }

  @Override
  public void removeRegistration(String address, RegistrationInfo info, Completable<Void> promise) {
    synchronized (own) {
      Set<RegistrationInfo> infos = own.get(address);
      if (infos != null && infos.remove(info) && infos.isEmpty()) {
        own.remove(address);
      }
    }
    super.removeRegistration(address, info, promise);
  }

  @Listener
  public final class MergeListener {
    @Merged
    public void merged(MergeEvent e) {
      log.info(
          "The replicas' cluster merged ({} members): this replica puts back its node information"
              + " and event-bus handlers, which the merge may have dropped",
          e.getNewMembers().size());
      for (long delay : PUT_BACK_AFTER) {
        vertx.setTimer(delay, t -> putBackOwn());
      }
    }
  }

  /**
   * Puts this replica's node information and subscriptions again. A replica's own caches may still
   * show them where the merged cluster's do not, so they are put whether or not they seem to be
   * there; putting an entry that is there changes nothing.
   */
  private void putBackOwn() {
    if (leaving) {
      return;
    }
    NodeInfo info = getNodeInfo();
    if (info != null) {
      setNodeInfo(info, Promise.promise());
    }
    Map<String, Set<RegistrationInfo>> snapshot = new HashMap<>();
    synchronized (own) {
      own.forEach((address, infos) -> snapshot.put(address, Set.copyOf(infos)));
    }
    snapshot.forEach((address, infos) -> infos.forEach(i -> putBack(address, i)));
  }

  /** Adds the subscription again, and takes it away again if it was removed meanwhile. */
  private void putBack(String address, RegistrationInfo info) {
    Promise<Void> added = Promise.promise();
    super.addRegistration(address, info, added);
    added
        .future()
        .onSuccess(
            v -> {
              boolean stillOwn;
              synchronized (own) {
                stillOwn = own.getOrDefault(address, Set.of()).contains(info);
              }
              if (!stillOwn) {
                super.removeRegistration(address, info, Promise.promise());
              }
            });
  }

  @Override
  public void leave(Completable<Void> promise) {
    leaving = true;
    super.leave(
        (left, failure) ->
            vertx
                .<Void>executeBlocking(
                    () -> {
                      caches.stop();
                      return null;
                    },
                    false)
                .onComplete((stopped, stopFailure) -> promise.complete(null, failure)));
  }
}
