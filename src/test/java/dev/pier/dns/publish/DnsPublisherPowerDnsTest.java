package dev.pier.dns.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.config.Secrets;
import dev.pier.dns.ChangeSet;
import dev.pier.dns.ClusterLocation;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.HostnameResolver;
import dev.pier.dns.RecordSet;
import dev.pier.dns.ServingCluster;
import dev.pier.dns.powerdns.ApiKey;
import dev.pier.dns.powerdns.PowerDnsOptions;
import dev.pier.dns.powerdns.PowerDnsProvider;
import dev.pier.events.EventReasons;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkResult;
import dev.pier.testkit.PowerDnsServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The publisher against a real pdns_server when PowerDNS rejects one name of a change set. */
class DnsPublisherPowerDnsTest {
  private static final String IP = "198.51.100.40";
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

  /**
   * The real provider, except that right before the first change set is sent another writer puts a
   * CNAME at {@code name}: the race that turns a change set Pier computed as valid into a 422.
   */
  private static DnsProvider racing(String name) {
    return new DnsProvider() {
      private boolean raced;

      @Override
      public String name() {
        return provider.name();
      }

      @Override
      public Future<List<DnsZone>> zones() {
        return provider.zones();
      }

      @Override
      public Future<Optional<DnsZone>> zone(String id) {
        return provider.zone(id);
      }

      @Override
      public Future<DnsZone> createZone(String zoneName) {
        return provider.createZone(zoneName);
      }

      @Override
      public Future<List<RecordSet>> recordSets(DnsZone zone, String n) {
        return provider.recordSets(zone, n);
      }

      @Override
      public Future<List<RecordSet>> recordSets(DnsZone zone) {
        return provider.recordSets(zone);
      }

      @Override
      public Future<Void> apply(DnsZone zone, ChangeSet changes) {
        if (!raced) {
          raced = true;
          return vertx
              .executeBlocking(
                  () -> {
                    pdns.putForeign(zone.id(), name, "CNAME", "elsewhere.example.");
                    return null;
                  })
              .compose(v -> provider.apply(zone, changes));
        }
        return provider.apply(zone, changes);
      }
    };
  }

  @Test
  void theOtherNamesLandWhenPowerDnsRejectsOne() throws Exception {
    pdns.createZone("split.example.");
    DnsOptions options =
        new DnsOptions()
            .setZoneName("split.example")
            .setFederation("fed")
            .setOwnerId("me")
            .setRegion("r1")
            .setZones(List.of("z1", "z2"));
    String global = "web.ns.fed.svc.split.example.";
    String region = "web.ns.fed.svc.r1.split.example.";
    String z1 = "web.ns.fed.svc.z1.r1.split.example.";
    String z2 = "web.ns.fed.svc.z2.r1.split.example.";
    DnsPublisher publisher =
        new DnsPublisher(racing(z1), options, new ServiceFilter(Set.of()), null);
    DnsPublisherSyncTest.FakeCluster cluster = new DnsPublisherSyncTest.FakeCluster();
    ServiceKey key = new ServiceKey("c1", "ns", "web");
    var svc = DnsPublisherSyncTest.svc("ns", "web");
    LbStatus status = new LbStatus(List.of(LbIngress.ip(IP)));

    WorkResult first = publisher.sync(cluster, key, svc, status).await(20, TimeUnit.SECONDS);

    assertThat(first.outcome()).isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(pdns.dig(global, "A")).containsExactly(IP);
    assertThat(pdns.dig(region, "A")).containsExactly(IP);
    assertThat(pdns.dig(z2, "A")).containsExactly(IP);
    assertThat(pdns.dig(z1, "CNAME")).containsExactly("elsewhere.example.");
    assertThat(cluster.withReason(EventReasons.DNS_RECORD_REJECTED))
        .singleElement()
        .satisfies(e -> assertThat(e).contains(z1).contains("422"));

    // The retry reads the name, finds the other writer's CNAME and leaves it alone.
    WorkResult second = publisher.sync(cluster, key, svc, status).await(20, TimeUnit.SECONDS);
    assertThat(second.outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(cluster.withReason(EventReasons.DNS_RECORD_CONFLICT))
        .singleElement()
        .satisfies(e -> assertThat(e).contains(z1));
    assertThat(pdns.dig(z1, "CNAME")).containsExactly("elsewhere.example.");
  }

  /**
   * Two members serve a federated Service from two regions through load balancer hostnames. When
   * one hostname stops resolving, only the names that member feeds keep their last answer; the
   * other region's names follow their member's change.
   */
  @Test
  void anUnresolvableHostnameHoldsOnlyTheNamesItFeeds() throws Exception {
    pdns.createZone("held.example.");
    pdns.createZone("elb.held.example.");
    String lbA = "lb-a.elb.held.example.";
    String lbB = "lb-b.elb.held.example.";
    pdns.putForeign("elb.held.example.", lbA, "A", "198.51.100.1");
    pdns.putForeign("elb.held.example.", lbB, "A", "198.51.100.2");
    DnsOptions options =
        new DnsOptions().setZoneName("held.example").setFederation("fed").setOwnerId("me");
    HostnameResolver resolver = new HostnameResolver(vertx, "127.0.0.1", pdns.dnsPort());
    DnsPublisher publisher =
        new DnsPublisher(provider, options, new ServiceFilter(Set.of()), resolver);
    DnsPublisherSyncTest.FakeCluster host = new DnsPublisherSyncTest.FakeCluster();
    ServiceKey key = new ServiceKey("c1", "ns", "web");
    var svc = DnsPublisherSyncTest.svc("ns", "web");
    String global = "web.ns.fed.svc.held.example.";
    String regionA = "web.ns.fed.svc.ra.held.example.";
    String zoneA = "web.ns.fed.svc.za.ra.held.example.";
    String regionB = "web.ns.fed.svc.rb.held.example.";
    String zoneB = "web.ns.fed.svc.zb.rb.held.example.";
    java.util.function.Supplier<List<Future<ServingCluster>>> serving =
        () ->
            List.of(
                publisher.servingCluster(
                    new ClusterLocation("a", "ra", List.of("za")),
                    List.of(LbIngress.hostname(lbA)),
                    true),
                publisher.servingCluster(
                    new ClusterLocation("b", "rb", List.of("zb")),
                    List.of(LbIngress.hostname(lbB)),
                    true));

    WorkResult first =
        publisher.syncFederated(host, key, svc, true, serving.get()).await(20, TimeUnit.SECONDS);
    assertThat(first.outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(pdns.dig(global, "A")).containsExactlyInAnyOrder("198.51.100.1", "198.51.100.2");
    assertThat(pdns.dig(zoneB, "A")).containsExactly("198.51.100.2");

    // Member a's load balancer moves; member b's hostname is gone from its DNS.
    pdns.putForeign("elb.held.example.", lbA, "A", "198.51.100.11");
    pdns.deleteForeign("elb.held.example.", lbB, "A");

    WorkResult second =
        publisher.syncFederated(host, key, svc, true, serving.get()).await(20, TimeUnit.SECONDS);

    assertThat(second.outcome()).isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(pdns.dig(regionA, "A")).containsExactly("198.51.100.11");
    assertThat(pdns.dig(zoneA, "A")).containsExactly("198.51.100.11");
    // Unknown is not gone: what member b feeds keeps its last answer.
    assertThat(pdns.dig(regionB, "A")).containsExactly("198.51.100.2");
    assertThat(pdns.dig(zoneB, "A")).containsExactly("198.51.100.2");
    assertThat(pdns.dig(global, "A")).containsExactlyInAnyOrder("198.51.100.1", "198.51.100.2");
    assertThat(host.withReason(EventReasons.DNS_HOSTNAME_UNRESOLVED))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e)
                    .contains("lb-b.elb.held.example")
                    .contains("cluster b")
                    .contains(global)
                    .contains(zoneB)
                    .doesNotContain(zoneA));
    assertThat(host.withReason(EventReasons.SYNC_DNS_FAILED)).isEmpty();

    // Once it resolves again, every name follows.
    pdns.putForeign("elb.held.example.", lbB, "A", "198.51.100.12");
    WorkResult third =
        publisher.syncFederated(host, key, svc, true, serving.get()).await(20, TimeUnit.SECONDS);
    assertThat(third.outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(pdns.dig(global, "A")).containsExactlyInAnyOrder("198.51.100.11", "198.51.100.12");
    assertThat(pdns.dig(zoneB, "A")).containsExactly("198.51.100.12");
    resolver.close().await(20, TimeUnit.SECONDS);
  }
}
