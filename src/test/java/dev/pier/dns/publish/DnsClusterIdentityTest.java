package dev.pier.dns.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.config.Secrets;
import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordSet;
import dev.pier.dns.powerdns.ApiKey;
import dev.pier.dns.powerdns.PowerDnsOptions;
import dev.pier.dns.powerdns.PowerDnsProvider;
import dev.pier.events.EventReasons;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkResult;
import dev.pier.testkit.PowerDnsServer;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two clusters publishing into one PowerDNS zone with the same {@code dns.ownerId}: each marks its
 * records {@code pier-owner=<ownerId>;cluster=<uid>} and never changes or deletes the other's; a
 * record marked the old way ({@code pier-owner=<ownerId>}) is adopted only when it holds exactly
 * what this cluster would write.
 */
class DnsClusterIdentityTest {
  private static final String IP_A = "198.51.100.1";
  private static final String IP_B = "198.51.100.2";
  private static PowerDnsServer pdns;
  private static Vertx vertx;
  private static PowerDnsProvider provider;

  @BeforeAll
  static void setUp() {
    pdns = PowerDnsServer.create();
    vertx = Vertx.vertx();
    String keyFile = pdns.apiKeyFile().toString();
    provider =
        new PowerDnsProvider(
            vertx,
            new PowerDnsOptions()
                .setUrl(pdns.apiUrl())
                .setTimeout(Duration.ofSeconds(3))
                .setApiKey(ApiKey.of(Secrets.fromFile(keyFile).value(), "file " + keyFile)));
  }

  @AfterAll
  static void tearDown() throws Exception {
    provider.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    pdns.close();
  }

  private static DnsOptions options(String zone) {
    // One name per Service: no region, no zones.
    return new DnsOptions().setZoneName(zone).setFederation("fed").setOwnerId("pier");
  }

  private static DnsPublisher publisher(String zone) {
    return new DnsPublisher(provider, options(zone), new ServiceFilter(Set.of()), null);
  }

  private static DnsPublisherSyncTest.FakeCluster cluster(String uid) {
    DnsPublisherSyncTest.FakeCluster c = new DnsPublisherSyncTest.FakeCluster();
    c.identity = new ClusterIdentity("kubernetes", uid);
    return c;
  }

  private static Service svc() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("web")
        .withUid("uid-svc")
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .endSpec()
        .build();
  }

  private static WorkResult sync(
      DnsPublisher p, DnsPublisherSyncTest.FakeCluster c, Service svc, String ip) throws Exception {
    LbStatus status = ip == null ? LbStatus.EMPTY : new LbStatus(List.of(LbIngress.ip(ip)));
    return p.sync(c, new ServiceKey("kubernetes", "ns", "web"), svc, status)
        .await(20, TimeUnit.SECONDS);
  }

  private static List<RecordSet> read(String zone, String name) throws Exception {
    DnsZone z = provider.zone(zone).await(10, TimeUnit.SECONDS).orElseThrow();
    return provider.recordSets(z, name).await(10, TimeUnit.SECONDS);
  }

  @Test
  void twoClustersWithOneOwnerIdNeverTouchEachOthersNames() throws Exception {
    String zone = "shared.example.";
    pdns.createZone(zone);
    String name = "web.ns.fed.svc." + zone;
    DnsPublisherSyncTest.FakeCluster a = cluster("uid-of-a");
    DnsPublisherSyncTest.FakeCluster b = cluster("uid-of-b");
    DnsPublisher pa = publisher(zone);
    DnsPublisher pb = publisher(zone);

    assertThat(sync(pa, a, svc(), IP_A).outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(pdns.dig(name, "A")).containsExactly(IP_A);
    assertThat(read(zone, name))
        .singleElement()
        .satisfies(r -> assertThat(r.owner()).isEqualTo("pier;cluster=uid-of-a"));
    assertThat(pdns.zoneJson(zone)).contains("pier-owner=pier;cluster=uid-of-a");

    // B has a Service of the same name: its record is in the way of B, not B's to overwrite.
    sync(pb, b, svc(), IP_B);
    assertThat(pdns.dig(name, "A")).containsExactly(IP_A);
    assertThat(b.withReason(EventReasons.DNS_RECORD_CONFLICT))
        .singleElement()
        .satisfies(e -> assertThat(e).contains(name));

    // B's Service goes: A's name stays.
    sync(pb, b, null, null);
    assertThat(pdns.dig(name, "A")).containsExactly(IP_A);

    // A's own Service going removes A's name.
    sync(pa, a, null, null);
    assertThat(pdns.dig(name, "A")).isEmpty();
  }

  @Test
  void anOldSchemeRecordIsAdoptedOnlyWhenItHoldsExactlyWhatThisClusterWrites() throws Exception {
    String zone = "legacy.example.";
    pdns.createZone(zone);
    String name = "web.ns.fed.svc." + zone;
    DnsZone z = provider.zone(zone).await(10, TimeUnit.SECONDS).orElseThrow();
    long ttl = options(zone).getTtl();
    // Written by an earlier Pier: the comment is pier-owner=pier, no cluster.
    provider
        .apply(
            z,
            new ChangeSet(
                List.of(), List.of(new RecordSet(name, RecordSet.A, ttl, List.of(IP_B), "pier"))))
        .await(10, TimeUnit.SECONDS);

    // Other content than this cluster's: a Warning, and nothing changes.
    DnsPublisherSyncTest.FakeCluster a = cluster("uid-of-a");
    sync(publisher(zone), a, svc(), IP_A);
    assertThat(pdns.dig(name, "A")).containsExactly(IP_B);
    assertThat(read(zone, name))
        .singleElement()
        .satisfies(r -> assertThat(r.owner()).isEqualTo("pier"));
    assertThat(a.withReason(EventReasons.DNS_RECORD_CONFLICT))
        .singleElement()
        .satisfies(e -> assertThat(e).contains(name));
    // Its Service gone, the unproven record still stays.
    sync(publisher(zone), a, null, null);
    assertThat(pdns.dig(name, "A")).containsExactly(IP_B);

    // Exactly what this cluster writes: adopted, the mark now carries the cluster uid.
    DnsPublisherSyncTest.FakeCluster b = cluster("uid-of-b");
    assertThat(sync(publisher(zone), b, svc(), IP_B).outcome())
        .isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(b.withReason(EventReasons.DNS_RECORD_CONFLICT)).isEmpty();
    assertThat(pdns.dig(name, "A")).containsExactly(IP_B);
    assertThat(read(zone, name))
        .singleElement()
        .satisfies(r -> assertThat(r.owner()).isEqualTo("pier;cluster=uid-of-b"));
  }
}
