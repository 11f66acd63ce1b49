package dev.pier.bench;

import dev.pier.dns.DataPathDecision;
import dev.pier.dns.ProbeSpec;
import dev.pier.dns.publish.DataPathOptions;
import dev.pier.dns.publish.DataPathProber;
import dev.pier.model.ServiceKey;
import dev.pier.util.EgressPolicy;
import dev.pier.util.RequestFence;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The process {@link DnsProbeBench} measures: Pier's own {@link DataPathProber} probing the
 * load-balancer addresses of N federated Services in M members, as the federation's host side does,
 * and nothing else. It prints {@code READY}, starts probing when it reads {@code start} on its
 * standard input, and prints {@code LEAVE <service> <address> <epoch ms>} when an address leaves a
 * Service's names ({@link DataPathDecision#leaving}) and {@code RETURN ...} when it comes back.
 *
 * <p>Arguments: {@code SERVICES MEMBERS PORT PROBE PERIOD_MS TIMEOUT_MS FAILURES SUCCESSES PANIC},
 * PROBE as the annotation {@code pier.dev/dns-probe} takes it.
 */
public final class DnsProbeTarget extends AbstractVerticle {
  private final int services;
  private final int members;
  private final int port;
  private final ProbeSpec spec;
  private final DataPathOptions options;
  private final Map<ServiceKey, Set<String>> leaving = new HashMap<>();
  private DataPathProber prober;

  private DnsProbeTarget(
      int services, int members, int port, ProbeSpec spec, DataPathOptions options) {
    this.services = services;
    this.members = members;
    this.port = port;
    this.spec = spec;
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    ProbeSpec.Parsed spec = ProbeSpec.parse(args[3]);
    if (spec.spec() == null) {
      throw new IllegalArgumentException("probe '" + args[3] + "': " + spec.problem());
    }
    DataPathOptions options =
        new DataPathOptions(
            Duration.ofMillis(Long.parseLong(args[4])),
            Duration.ofMillis(Long.parseLong(args[5])),
            Integer.parseInt(args[6]),
            Integer.parseInt(args[7]),
            Integer.parseInt(args[8]),
            EgressPolicy.of(List.of("127.0.0.0/8"), List.of()),
            RequestFence.OPEN);
    DnsProbeTarget target =
        new DnsProbeTarget(
            Integer.parseInt(args[0]),
            Integer.parseInt(args[1]),
            Integer.parseInt(args[2]),
            spec.spec(),
            options);
    Vertx vertx = Vertx.vertx();
    vertx.deployVerticle(target).await();
    System.out.println("READY");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.trim().equals("start")) {
        Context ctx = target.context;
        ctx.runOnContext(v -> target.begin());
      }
    }
    vertx.close().await();
  }

  /** The address member {@code m} gives Service {@code s}: 127.(20+m).(s/250).(s%250+1). */
  static String address(int member, int service) {
    return "127." + (20 + member) + "." + (service / 250) + "." + (service % 250 + 1);
  }

  static ServiceKey key(int service) {
    return new ServiceKey("host", "bench", "svc-" + service);
  }

  private void begin() {
    prober =
        new DataPathProber(
            vertx, options, () -> true, this::changed, new SimpleMeterRegistry(), () -> 0L);
    for (int s = 0; s < services; s++) {
      prober.probe(key(s), spec, port, addresses(s));
    }
    prober.start();
    System.out.println("STARTED");
    System.out.flush();
  }

  private Set<String> addresses(int service) {
    Set<String> out = new TreeSet<>();
    for (int m = 0; m < members; m++) {
      out.add(address(m, service));
    }
    return out;
  }

  /** What the federation's aggregate does on a change: asks the prober which addresses leave. */
  private void changed(ServiceKey key) {
    int s = Integer.parseInt(key.name().substring("svc-".length()));
    DataPathDecision d = prober.probe(key, spec, port, addresses(s));
    Set<String> before = leaving.getOrDefault(key, Set.of());
    long now = System.currentTimeMillis();
    for (String a : d.leaving()) {
      if (!before.contains(a)) {
        System.out.println("LEAVE " + key.name() + " " + a + " " + now);
      }
    }
    for (String a : before) {
      if (!d.leaving().contains(a)) {
        System.out.println("RETURN " + key.name() + " " + a + " " + now);
      }
    }
    System.out.flush();
    leaving.put(key, d.leaving());
  }
}
