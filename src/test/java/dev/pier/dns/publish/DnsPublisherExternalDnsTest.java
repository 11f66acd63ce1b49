package dev.pier.dns.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.dns.ClusterLocation;
import dev.pier.dns.DnsNames;
import dev.pier.dns.ServingCluster;
import dev.pier.dns.externaldns.ExternalDnsOptions;
import dev.pier.dns.externaldns.ExternalDnsWebhookProvider;
import dev.pier.events.EventReasons;
import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.policy.ServiceFilter;
import dev.pier.queue.WorkResult;
import dev.pier.testkit.ExternalDnsWebhookServer;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The publisher through an external-dns webhook provider (the test kit's stand-in). */
class DnsPublisherExternalDnsTest {
  private static final String IP = "198.51.100.50";
  private static final String SQUAT = "\"heritage=external-dns,external-dns/owner=default\"";
  private ExternalDnsWebhookServer server;
  private Vertx vertx;
  private ExternalDnsWebhookProvider provider;

  @BeforeEach
  void setUp() {
    server = ExternalDnsWebhookServer.start(List.of("xd.example"), List.of());
    vertx = Vertx.vertx();
    provider =
        new ExternalDnsWebhookProvider(
            vertx,
            new ExternalDnsOptions()
                .setUrl(server.url())
                .setTimeout(Duration.ofSeconds(3))
                .setNames(new DnsNames("fed", "xd.example")));
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void namesAndRegistryComeAndGoAndASquattedRegistryNameIsLeftAlone() throws Exception {
    DnsOptions options =
        new DnsOptions()
            .setZoneName("xd.example")
            .setFederation("fed")
            .setOwnerId("me")
            .setRegion("r1")
            .setZones(List.of("z1", "z2"));
    String global = "web.ns.fed.svc.xd.example";
    String region = "web.ns.fed.svc.r1.xd.example";
    String z1 = "web.ns.fed.svc.z1.r1.xd.example";
    String z2 = "web.ns.fed.svc.z2.r1.xd.example";
    // Another writer's TXT where Pier's registry record of z1's A would go.
    server.put("pier-a-" + z1, "TXT", 60, SQUAT);
    DnsPublisher publisher = new DnsPublisher(provider, options, new ServiceFilter(Set.of()), null);
    DnsPublisherSyncTest.FakeCluster cluster = new DnsPublisherSyncTest.FakeCluster();
    ServiceKey key = new ServiceKey("c1", "ns", "web");
    LbStatus status = new LbStatus(List.of(LbIngress.ip(IP)));

    WorkResult first =
        publisher
            .sync(cluster, key, DnsPublisherSyncTest.svc("ns", "web"), status)
            .await(20, TimeUnit.SECONDS);

    assertThat(first.outcome()).isEqualTo(WorkResult.Outcome.RETRY);
    assertThat(server.targets(global, "A")).containsExactly(IP);
    assertThat(server.targets(region, "A")).containsExactly(IP);
    assertThat(server.targets(z2, "A")).containsExactly(IP);
    assertThat(server.targets(z1, "A")).isNull();
    assertThat(server.targets("pier-a-" + z1, "TXT")).containsExactly(SQUAT);
    assertThat(server.targets("pier-a-" + global, "TXT"))
        .containsExactly(
            "\"heritage=pier,pier/owner=me,pier/cluster=uid-of-c1,pier/resource=service/ns/web\"");
    assertThat(cluster.withReason(EventReasons.DNS_RECORD_REJECTED))
        .singleElement()
        .satisfies(e -> assertThat(e).contains(z1).contains("pier-a-" + z1));

    // A restarted Pier finds the Service through its registry records.
    DnsPublisher restarted = new DnsPublisher(provider, options, new ServiceFilter(Set.of()), null);
    AtomicReference<Set<String>> holders = new AtomicReference<>();
    restarted.start(holders::set).await(20, TimeUnit.SECONDS);
    assertThat(holders.get()).containsExactly("ns/web");

    WorkResult gone =
        restarted.sync(cluster, key, null, LbStatus.EMPTY).await(20, TimeUnit.SECONDS);
    assertThat(gone.outcome()).isEqualTo(WorkResult.Outcome.SUCCESS);
    assertThat(server.records())
        .singleElement()
        .satisfies(r -> assertThat(r.getString("dnsName")).isEqualTo("pier-a-" + z1));
  }

  /**
   * The webhook cannot answer per query: failover gets its static equivalent, weighted and views
   * answer round robin with a DNSStrategyUnsupported Warning.
   */
  @Test
  void strategiesGetTheirStaticEquivalentOrAnUnsupportedWarning() throws Exception {
    DnsOptions options =
        new DnsOptions()
            .setZoneName("xd.example")
            .setFederation("fed")
            .setOwnerId("me")
            .setViews(Map.of("eu", List.of("10.1.0.0/16")));
    DnsPublisher publisher = new DnsPublisher(provider, options, new ServiceFilter(Set.of()), null);
    DnsPublisherSyncTest.FakeCluster host = new DnsPublisherSyncTest.FakeCluster();
    ServiceKey key = new ServiceKey("c1", "ns", "web");
    String global = "web.ns.fed.svc.xd.example";
    List<Future<ServingCluster>> serving =
        List.of(
            Future.succeededFuture(
                new ServingCluster(
                    new ClusterLocation("east", "eu", List.of()),
                    List.of("192.0.2.1"),
                    List.of(),
                    true)),
            Future.succeededFuture(
                new ServingCluster(
                    new ClusterLocation("west", "us", List.of()),
                    List.of("192.0.2.2"),
                    List.of(),
                    true)));

    publisher
        .syncFederated(
            host,
            key,
            annotated(
                Map.of("pier.dev/dns-strategy", "failover", "pier.dev/dns-failover", "us,eu")),
            true,
            serving)
        .await(20, TimeUnit.SECONDS);
    assertThat(server.targets(global, "A")).containsExactly("192.0.2.2");
    assertThat(host.withReason(EventReasons.DNS_STRATEGY_UNSUPPORTED)).isEmpty();

    for (String strategy : List.of("weighted", "views")) {
      publisher
          .syncFederated(
              host,
              key,
              annotated(Map.of("pier.dev/dns-strategy", strategy, "pier.dev/dns-weights", "eu=1")),
              true,
              serving)
          .await(20, TimeUnit.SECONDS);
      assertThat(server.targets(global, "A")).containsExactlyInAnyOrder("192.0.2.1", "192.0.2.2");
      assertThat(host.withReason(EventReasons.DNS_STRATEGY_UNSUPPORTED))
          .last()
          .satisfies(e -> assertThat(e).contains("pier.dev/dns-strategy", strategy));
    }
    assertThat(host.withReason(EventReasons.DNS_STRATEGY_UNSUPPORTED)).hasSize(2);
  }

  private static Service annotated(Map<String, String> annotations) {
    Service svc = DnsPublisherSyncTest.svc("ns", "web");
    svc.getMetadata().setAnnotations(annotations);
    return svc;
  }
}
