package dev.pier.cloud.benchmark;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cloud without sockets, for measuring Pier itself: every call completes after a fixed delay on a
 * Vert.x timer (never blocking a thread), like a remote cloud API whose round trip takes that long.
 * Each Service gets its own address from 10.0.0.1 upwards (16 million of them), kept for the
 * Service's life. Calls are counted per operation.
 */
public final class BenchmarkLoadBalancerProvider implements LoadBalancerProvider {

  /** The SPI calls, as counted. */
  public enum Operation {
    INITIALIZE,
    GET,
    ENSURE,
    UPDATE_HOSTS,
    DELETE
  }

  private final Vertx vertx;
  private final long delayMillis;
  private final Map<String, String> addresses = new ConcurrentHashMap<>();
  private final Map<String, Integer> hostCounts = new ConcurrentHashMap<>();
  private final AtomicInteger nextAddress = new AtomicInteger(1);
  private final Map<Operation, AtomicLong> calls = new EnumMap<>(Operation.class);

  public BenchmarkLoadBalancerProvider(Vertx vertx, BenchmarkProviderOptions options) {
    this.vertx = vertx;
    this.delayMillis = options.getDelay().toMillis();
    for (Operation op : Operation.values()) {
      calls.put(op, new AtomicLong());
    }
  }

  @Override
  public String name() {
    return "benchmark";
  }

  @Override
  public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    for (LbService s : services) {
      // Keep the addresses of load balancers made by an earlier run.
      s.status().ingress().stream()
          .map(LbIngress::ip)
          .filter(ip -> ip != null && ip.startsWith("10."))
          .findFirst()
          .ifPresent(ip -> addresses.put(s.uid(), ip));
    }
    for (String ip : addresses.values()) {
      String[] o = ip.split("\\.");
      if (o.length == 4) {
        int n =
            (Integer.parseInt(o[1]) << 16) | (Integer.parseInt(o[2]) << 8) | Integer.parseInt(o[3]);
        nextAddress.accumulateAndGet(n + 1, Math::max);
      }
    }
    return after(Operation.INITIALIZE, null);
  }

  @Override
  public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
    String ip = addresses.get(service.uid());
    return after(Operation.GET, ip == null ? Optional.empty() : Optional.of(status(ip)));
  }

  @Override
  public String loadBalancerName(String clusterName, LbService service) {
    return "bench-" + service.uid();
  }

  @Override
  public Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    String ip =
        addresses.computeIfAbsent(service.uid(), uid -> address(nextAddress.getAndIncrement()));
    hostCounts.put(service.uid(), nodes.size());
    return after(Operation.ENSURE, EnsureResult.of(status(ip)));
  }

  @Override
  public Future<Void> updateLoadBalancerHosts(
      String clusterName, LbService service, List<LbNode> nodes) {
    hostCounts.put(service.uid(), nodes.size());
    return after(Operation.UPDATE_HOSTS, null);
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    addresses.remove(service.uid());
    hostCounts.remove(service.uid());
    return after(Operation.DELETE, null);
  }

  /** Calls made so far of one operation. */
  public long calls(Operation op) {
    return calls.get(op).get();
  }

  /** The number of nodes the Service's load balancer was last pointed at, or -1. */
  public int hostCount(String uid) {
    return hostCounts.getOrDefault(uid, -1);
  }

  /** The n-th address (1-based) of 10.0.0.0/8, skipping nothing: 1 -> 10.0.0.1. */
  static String address(int n) {
    if (n < 1 || n >= 1 << 24) {
      throw new IllegalStateException("benchmark provider: out of addresses in 10.0.0.0/8");
    }
    return "10." + ((n >> 16) & 0xff) + "." + ((n >> 8) & 0xff) + "." + (n & 0xff);
  }

  private static LbStatus status(String ip) {
    return new LbStatus(List.of(LbIngress.ip(ip)));
  }

  private <T> Future<T> after(Operation op, T value) {
    calls.get(op).incrementAndGet();
    if (delayMillis <= 0) {
      return Future.succeededFuture(value);
    }
    Promise<T> promise = Promise.promise();
    vertx.setTimer(delayMillis, id -> promise.complete(value));
    return promise.future();
  }
}
