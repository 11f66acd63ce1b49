package dev.pier.boot;

import io.vertx.core.Completable;
import io.vertx.core.Vertx;
import io.vertx.ext.cluster.infinispan.InfinispanClusterManager;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.configuration.global.ShutdownHookBehavior;
import org.infinispan.configuration.parsing.ConfigurationBuilderHolder;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.remoting.transport.jgroups.JGroupsTransport;
import org.jgroups.JChannel;

/**
 * Vert.x's Infinispan cluster manager over Pier's own channel ({@link ReplicaChannel}): the caches
 * Vert.x needs (its subscriptions, node and HA information replicated, its maps distributed), the
 * cache manager started when the replica joins and stopped when it leaves, both off the event loop.
 */
final class ReplicaClusterManager extends InfinispanClusterManager {
  private final DefaultCacheManager caches;
  private Vertx vertx;

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
                super.join(promise);
              }
            });
  }

  @Override
  public void leave(Completable<Void> promise) {
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
