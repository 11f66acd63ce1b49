package dev.pier.faults;

import static org.awaitility.Awaitility.await;

import dev.pier.testkit.PowerDnsServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What must hold after every fault, checked the same way for every scenario:
 *
 * <ul>
 *   <li>no leaked load balancer: the cloud holds exactly one load balancer per wanted Service (type
 *       LoadBalancer, not being deleted, not a bad input), at the address its status shows;
 *   <li>no stuck finalizer: no Service is left being deleted, and every Service the scenario
 *       deleted is gone;
 *   <li>no lost update: each load balancer serves exactly the ports of its Service's final spec;
 *   <li>every bad input answered: each malformed Service has a Warning Event about it (its uid)
 *       naming what is wrong, and no load balancer;
 *   <li>no foreign DNS record touched (where the scenario has DNS): the zone's records without
 *       Pier's ownership comment are as they were before Pier started;
 *   <li>no lost Service: every Service seen in the namespace (and every bad input) is still there
 *       unless the scenario deleted it.
 * </ul>
 *
 * <p>{@link #awaitSettled} checks that they keep holding over {@link #WINDOW} once they first hold,
 * so that a stale write landing after a clean poll is seen.
 *
 * <p>A "nothing happened" check (no load balancer, no record touched, no write or cloud call by a
 * deposed leader, no copy deleted) also holds when Pier never got to the object, so a scenario
 * proves first that Pier saw it, with {@link dev.pier.testkit.PierSaw}. Here a bad input's "no load
 * balancer" counts only with its Warning, which is Pier's answer to that very object; the foreign
 * DNS records are untouched only once Pier tried the name a foreign record holds (the scenario
 * waits for the {@code DNSRecordConflict} Event on that Service first). The other invariants need
 * no such proof: each wanted Service's load balancer and ingress is Pier's work on it, and a load
 * balancer left over is something Pier did, not failed to see.
 */
final class Invariants {
  private final KubernetesClient client;
  private final String namespace;
  private final Cloud cloud;

  /** How long the invariants must keep holding after the last fault. */
  static final Duration WINDOW = Duration.ofSeconds(10);

  private final Set<String> deleted = new HashSet<>();
  private final Set<String> seen = new HashSet<>();
  private final Map<String, String> badInputs = new LinkedHashMap<>();
  private ForeignRecords foreignRecords;

  Invariants(KubernetesClient client, String namespace, Cloud cloud) {
    this.client = client;
    this.namespace = namespace;
    this.cloud = cloud;
  }

  /** The scenario deleted this Service: it must be gone. */
  Invariants deleted(String name) {
    deleted.add(name);
    return this;
  }

  /** A malformed Service: a Warning Event on it must contain {@code answer}. */
  Invariants badInput(String name, String answer) {
    badInputs.put(name, answer);
    return this;
  }

  /** Records the zone's records Pier did not write, as they are now: they must stay so. */
  Invariants foreignDnsRecords(PowerDnsServer pdns, String zone) {
    foreignRecords = new ForeignRecords(pdns, zone, ForeignRecords.read(pdns, zone));
    return this;
  }

  /** Waits at most {@code atMost} until every invariant holds; fails listing what does not. */
  void awaitHeld(Duration atMost) {
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(() -> violations().isEmpty());
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "invariants still violated after " + atMost + ":\n  " + String.join("\n  ", violations()),
          e);
    }
  }

  /**
   * Waits at most {@code atMost} until every invariant holds, then checks that they keep holding
   * for {@link #WINDOW}; fails listing what does not, or what broke within the window.
   */
  void awaitSettled(Duration atMost) throws InterruptedException {
    awaitHeld(atMost);
    long end = System.nanoTime() + WINDOW.toNanos();
    while (System.nanoTime() < end) {
      Thread.sleep(500);
      List<String> now = violations();
      if (!now.isEmpty()) {
        throw new AssertionError(
            "invariants held, then broke within " + WINDOW + ":\n  " + String.join("\n  ", now));
      }
    }
  }

  /** What does not hold now; empty when everything does. */
  List<String> violations() {
    List<String> out = new ArrayList<>();
    List<Service> services = client.services().inNamespace(namespace).list().getItems();
    Set<String> present =
        services.stream().map(s -> s.getMetadata().getName()).collect(Collectors.toSet());
    seen.addAll(present);
    seen.addAll(badInputs.keySet());
    for (String name : new TreeSet<>(seen)) {
      if (!present.contains(name) && !deleted.contains(name)) {
        out.add("lost Service: " + name + " is gone, and the scenario did not delete it");
      }
    }
    Map<String, Set<String>> lbs = new HashMap<>(cloud.loadBalancers());
    Map<String, Service> byName =
        services.stream().collect(Collectors.toMap(s -> s.getMetadata().getName(), s -> s));
    for (String name : deleted) {
      if (byName.containsKey(name)) {
        out.add(
            "stuck finalizer: deleted Service "
                + name
                + " still exists "
                + finalizers(byName.get(name)));
      }
    }
    for (Service s : services) {
      String name = s.getMetadata().getName();
      if (s.getMetadata().getDeletionTimestamp() != null) {
        if (!deleted.contains(name)) {
          out.add("stuck finalizer: Service " + name + " is being deleted " + finalizers(s));
        }
        continue;
      }
      if (!"LoadBalancer".equals(s.getSpec().getType())) {
        continue;
      }
      String ip = ingressIp(s);
      if (badInputs.containsKey(name)) {
        checkAnswered(s, badInputs.get(name), out);
        if (ip != null) {
          out.add("bad input " + name + " has an ingress " + ip);
        }
        continue;
      }
      if (ip == null) {
        out.add("lost update: Service " + name + " has no ingress");
        continue;
      }
      Set<String> served = lbs.remove(ip);
      Set<String> wanted =
          s.getSpec().getPorts().stream()
              .map(cloud::port)
              .collect(Collectors.toCollection(TreeSet::new));
      if (served == null) {
        out.add("lost update: no load balancer at " + ip + " for Service " + name);
      } else if (!served.equals(wanted)) {
        out.add(
            "lost update: the load balancer of "
                + name
                + " serves "
                + served
                + ", its spec "
                + wanted);
      }
    }
    lbs.forEach((ip, ports) -> out.add("leaked load balancer at " + ip + " serving " + ports));
    if (foreignRecords != null) {
      Map<String, String> now = ForeignRecords.read(foreignRecords.pdns(), foreignRecords.zone());
      if (!now.equals(foreignRecords.before())) {
        out.add("foreign DNS records touched: were " + foreignRecords.before() + ", are " + now);
      }
    }
    return out;
  }

  private void checkAnswered(Service s, String answer, List<String> out) {
    String name = s.getMetadata().getName();
    List<Event> events =
        client.v1().events().inNamespace(namespace).list().getItems().stream()
            .filter(e -> name.equals(e.getInvolvedObject().getName()))
            .filter(e -> s.getMetadata().getUid().equals(e.getInvolvedObject().getUid()))
            .filter(e -> "Warning".equals(e.getType()))
            .toList();
    if (events.stream().noneMatch(e -> e.getMessage() != null && e.getMessage().contains(answer))) {
      out.add(
          "bad input not answered: no Warning Event on "
              + name
              + " contains '"
              + answer
              + "'; its Warnings: "
              + events.stream().map(Event::getMessage).toList());
    }
  }

  /** The rrsets of a zone that carry no comment of Pier's: name/type -> records. */
  private record ForeignRecords(PowerDnsServer pdns, String zone, Map<String, String> before) {
    static Map<String, String> read(PowerDnsServer pdns, String zone) {
      Map<String, String> out = new TreeMap<>();
      JsonArray rrsets = new JsonObject(pdns.zoneJson(zone)).getJsonArray("rrsets");
      for (int i = 0; i < rrsets.size(); i++) {
        JsonObject rrset = rrsets.getJsonObject(i);
        boolean piers =
            rrset.getJsonArray("comments", new JsonArray()).encode().contains("pier-owner=");
        if (!piers && !rrset.getString("type").equals("SOA")) {
          out.put(
              rrset.getString("name") + "/" + rrset.getString("type"),
              rrset.getJsonArray("records").encode());
        }
      }
      return out;
    }
  }

  private static String ingressIp(Service s) {
    if (s.getStatus() == null || s.getStatus().getLoadBalancer() == null) {
      return null;
    }
    List<LoadBalancerIngress> ingress = s.getStatus().getLoadBalancer().getIngress();
    return ingress == null || ingress.isEmpty() ? null : ingress.get(0).getIp();
  }

  private static String finalizers(Service s) {
    return "(finalizers " + s.getMetadata().getFinalizers() + ")";
  }
}
