package dev.pier.dns.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordSet;
import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.kube.ClusterAccess;
import dev.pier.kube.FederationWrites;
import dev.pier.kube.ServiceWrites;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkKind;
import dev.pier.queue.WorkResult;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A Service's sync against an in-memory DNS server that refuses some names as PowerDNS does. */
class DnsPublisherSyncTest {
  private static final String IP = "192.0.2.10";

  /** Holds rrsets by name; refuses a whole change set (HTTP 422) when one of its names is bad. */
  static final class FakeDns implements DnsProvider {
    final DnsZone zone = new DnsZone("example.com.", "example.com.");
    final Map<String, List<RecordSet>> records = new LinkedHashMap<>();
    final List<ChangeSet> applied = new ArrayList<>();

    /** Names another writer holds: a change set touching one is refused. */
    final Set<String> rejected = new HashSet<>();

    @Override
    public String name() {
      return "fake";
    }

    @Override
    public Future<List<DnsZone>> zones() {
      return Future.succeededFuture(List.of(zone));
    }

    @Override
    public Future<Optional<DnsZone>> zone(String id) {
      return Future.succeededFuture(Optional.of(zone).filter(z -> z.id().equals(id)));
    }

    @Override
    public Future<DnsZone> createZone(String name) {
      return Future.failedFuture(new IllegalStateException("no zone creation here"));
    }

    @Override
    public Future<List<RecordSet>> recordSets(DnsZone zone, String name) {
      return Future.succeededFuture(records.getOrDefault(DnsNames.canonical(name), List.of()));
    }

    @Override
    public Future<List<RecordSet>> recordSets(DnsZone zone) {
      return Future.succeededFuture(records.values().stream().flatMap(List::stream).toList());
    }

    @Override
    public Future<Void> apply(DnsZone zone, ChangeSet changes) {
      applied.add(changes);
      for (RecordSet r :
          Stream.concat(changes.deletes().stream(), changes.replaces().stream()).toList()) {
        String bare = r.name().substring(0, r.name().length() - 1);
        if (bare.length() > 253
            || Arrays.stream(bare.split("\\.")).anyMatch(l -> l.length() > 63)) {
          return Future.failedFuture(
              DnsException.rejected(
                  "PowerDNS: cannot update example.com.: HTTP 422: Unable to parse DNS Name '"
                      + r.name()
                      + "'"));
        }
        if (rejected.contains(r.name())) {
          return Future.failedFuture(
              DnsException.rejected(
                  "PowerDNS: cannot update example.com.: HTTP 422: RRset "
                      + r.name()
                      + " IN "
                      + r.type()
                      + ": Conflicts with pre-existing CNAME RRset"));
        }
      }
      for (RecordSet d : changes.deletes()) {
        List<RecordSet> left =
            records.getOrDefault(d.name(), List.of()).stream()
                .filter(r -> !r.type().equals(d.type()))
                .toList();
        if (left.isEmpty()) {
          records.remove(d.name());
        } else {
          records.put(d.name(), left);
        }
      }
      for (RecordSet r : changes.replaces()) {
        List<RecordSet> sets =
            new ArrayList<>(
                records.getOrDefault(r.name(), List.of()).stream()
                    .filter(x -> !x.type().equals(r.type()))
                    .toList());
        sets.add(r);
        records.put(r.name(), sets);
      }
      return Future.succeededFuture();
    }

    /** The names of every change set sent so far, one set per call. */
    List<Set<String>> sentNames() {
      return applied.stream()
          .map(
              c -> {
                Set<String> n = new LinkedHashSet<>();
                c.deletes().forEach(r -> n.add(r.name()));
                c.replaces().forEach(r -> n.add(r.name()));
                return n;
              })
          .toList();
    }
  }

  /** A cluster without nodes whose Service has ready endpoints; Events kept as text. */
  static final class FakeCluster implements ClusterAccess {
    final List<String> events = new ArrayList<>();

    ClusterIdentity identity = new ClusterIdentity("c1", "uid-of-c1");

    @Override
    public String name() {
      return "c1";
    }

    @Override
    public ClusterIdentity identity() {
      return identity;
    }

    @Override
    public Service service(String namespace, String name) {
      return null;
    }

    @Override
    public List<Service> services() {
      return List.of();
    }

    @Override
    public boolean servicesSynced() {
      return true;
    }

    @Override
    public List<Node> nodes() {
      return List.of();
    }

    @Override
    public boolean hasReadyEndpoints(String namespace, String name) {
      return true;
    }

    @Override
    public ServiceWrites writer() {
      return null;
    }

    @Override
    public FederationWrites federationWrites() {
      return null;
    }

    @Override
    public EventSink events() {
      return (ObjectRef ref, String type, String reason, String message) ->
          events.add(type + " " + reason + ": " + message);
    }

    List<String> withReason(String reason) {
      return events.stream().filter(e -> e.startsWith("Warning " + reason + ":")).toList();
    }
  }

  private final FakeDns dns = new FakeDns();
  private final FakeCluster cluster = new FakeCluster();

  private DnsPublisher publisher(String region, String... zones) {
    return new DnsPublisher(
        dns,
        new DnsOptions()
            .setZoneName("example.com")
            .setFederation("fed")
            .setOwnerId("me")
            .setRegion(region)
            .setZones(List.of(zones)),
        new ServiceFilter(Set.of()),
        null);
  }

  /** A LoadBalancer Service with uid {@code uid-1}: what the publisher tests sync. */
  static Service svc(String ns, String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withUid("uid-1")
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .endSpec()
        .build();
  }

  private WorkResult sync(DnsPublisher p, String ns, String name) throws Exception {
    return p.sync(
            cluster,
            new ServiceKey("c1", ns, name),
            svc(ns, name),
            new LbStatus(List.of(LbIngress.ip(IP))))
        .await(10, TimeUnit.SECONDS);
  }

  private List<String> a(String name) {
    return dns.records.getOrDefault(name, List.of()).stream()
        .filter(r -> r.type().equals(RecordSet.A))
        .flatMap(r -> r.records().stream())
        .toList();
  }

  @Test
  void aServiceTheServerTakesIsOneChangeSet() throws Exception {
    DnsPublisher p = publisher("r1", "z1", "z2");
    assertThat(sync(p, "ns", "web").outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(dns.applied).hasSize(1);
    assertThat(dns.records).hasSize(4);
    assertThat(a("web.ns.fed.svc.z1.r1.example.com.")).containsExactly(IP);
    assertThat(cluster.events).noneMatch(e -> e.startsWith("Warning"));
  }

  @Test
  void aNameOverTheLimitsIsReportedAndNeverSentWhileTheOthersArePublished() throws Exception {
    String ns = "n".repeat(63);
    String name = "s".repeat(63);
    String region = "r".repeat(63);
    String zone = "z".repeat(63);
    DnsPublisher p = publisher(region, zone, "z2");
    String tooLong = p.names().zone(ns, name, zone, region);
    String global = p.names().global(ns, name);
    String regionName = p.names().region(ns, name, region);
    String zone2 = p.names().zone(ns, name, "z2", region);

    WorkResult first = sync(p, ns, name);

    // Nothing to retry: the name cannot get shorter by trying again.
    assertThat(first.outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(dns.sentNames()).allSatisfy(n -> assertThat(n).doesNotContain(tooLong));
    assertThat(a(global)).containsExactly(IP);
    assertThat(a(regionName)).containsExactly(IP);
    assertThat(a(zone2)).containsExactly(IP);
    assertThat(dns.records).doesNotContainKey(tooLong);
    assertThat(cluster.withReason(EventReasons.INVALID_DNS_NAME))
        .singleElement()
        .satisfies(e -> assertThat(e).contains(tooLong).contains("275 bytes").contains("253"));
    assertThat(cluster.withReason(EventReasons.SYNC_DNS_FAILED)).isEmpty();

    // The next sync finds DNS as it should be: nothing sent, one more Warning.
    int sent = dns.applied.size();
    assertThat(sync(p, ns, name).outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(dns.applied).hasSize(sent);
    assertThat(cluster.withReason(EventReasons.INVALID_DNS_NAME)).hasSize(2);
  }

  @Test
  void aNameTheServerRejectsIsRetriedAloneWhileTheOtherNamesLand() throws Exception {
    DnsPublisher p = publisher("r1", "z1", "z2");
    String z1 = p.names().zone("ns", "web", "z1", "r1");
    dns.rejected.add(z1);

    WorkResult first = sync(p, "ns", "web");

    assertThat(first.outcome()).isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(first.retryKinds()).containsExactly(WorkKind.DNS);
    assertThat(a(p.names().global("ns", "web"))).containsExactly(IP);
    assertThat(a(p.names().region("ns", "web", "r1"))).containsExactly(IP);
    assertThat(a(p.names().zone("ns", "web", "z2", "r1"))).containsExactly(IP);
    assertThat(dns.records).doesNotContainKey(z1);
    assertThat(cluster.withReason(EventReasons.DNS_RECORD_REJECTED))
        .singleElement()
        .satisfies(
            e -> assertThat(e).contains(z1).contains("Conflicts with pre-existing CNAME RRset"));

    // The other writer is gone: the retry sends only the name that failed.
    dns.rejected.clear();
    int sent = dns.applied.size();
    assertThat(sync(p, "ns", "web").outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(dns.sentNames().subList(sent, dns.applied.size())).containsExactly(Set.of(z1));
    assertThat(a(z1)).containsExactly(IP);
  }

  @Test
  void whenEveryNameIsRejectedTheSyncStillRetries() throws Exception {
    DnsPublisher p = publisher("r1", "z1");
    dns.rejected.add(p.names().global("ns", "web"));
    dns.rejected.add(p.names().region("ns", "web", "r1"));
    dns.rejected.add(p.names().zone("ns", "web", "z1", "r1"));

    WorkResult r = sync(p, "ns", "web");

    assertThat(r.outcome()).isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(dns.records).isEmpty();
    assertThat(cluster.withReason(EventReasons.DNS_RECORD_REJECTED)).hasSize(3);
  }
}
