package dev.pier.dns.powerdns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.Secrets;
import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsZone;
import dev.pier.dns.HostnameResolver;
import dev.pier.dns.RecordSet;
import dev.pier.dns.ZoneBootstrap;
import dev.pier.testkit.PowerDnsServer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The PowerDNS provider against a real pdns_server, checked with real DNS queries. */
class PowerDnsProviderTest {
  private static PowerDnsServer pdns;
  private static Vertx vertx;
  private static PowerDnsProvider provider;

  @BeforeAll
  static void setUp() {
    pdns = PowerDnsServer.create();
    vertx = Vertx.vertx();
    provider = provider(pdns.apiUrl(), pdns.apiKeyFile().toString());
  }

  @AfterAll
  static void tearDown() throws Exception {
    provider.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    pdns.close();
  }

  private static PowerDnsProvider provider(String url, String keyFile) {
    return new PowerDnsProvider(
        vertx,
        new PowerDnsOptions()
            .setUrl(url)
            .setTimeout(Duration.ofSeconds(3))
            .setApiKey(ApiKey.of(Secrets.fromFile(keyFile).value(), "file " + keyFile)));
  }

  @Test
  void aMissingZoneIsCreatedOnceThenFoundByNameOrId() throws Exception {
    DnsZone created =
        ZoneBootstrap.findOrCreate(provider, "boot.example", "").await(20, TimeUnit.SECONDS);
    assertThat(created.name()).isEqualTo("boot.example.");
    DnsZone again =
        ZoneBootstrap.findOrCreate(provider, "boot.example.", "").await(20, TimeUnit.SECONDS);
    assertThat(again).isEqualTo(created);
    assertThat(ZoneBootstrap.findOrCreate(provider, "", created.id()).await(20, TimeUnit.SECONDS))
        .isEqualTo(created);
    assertThat(provider.zone(created.id()).await(20, TimeUnit.SECONDS)).contains(created);
    assertThat(provider.zone("nowhere.example.").await(20, TimeUnit.SECONDS)).isEmpty();
    assertThat(
            provider.zones().await(20, TimeUnit.SECONDS).stream()
                .filter(z -> z.name().equals("boot.example.")))
        .hasSize(1);
    assertThatThrownBy(
            () ->
                ZoneBootstrap.findOrCreate(provider, "", "nowhere.example.")
                    .await(20, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("nowhere.example.");
  }

  @Test
  void aToCnameAndBackInOnePatchEachWithTheOwnerMark() throws Exception {
    DnsZone zone =
        ZoneBootstrap.findOrCreate(provider, "switch.example", "").await(20, TimeUnit.SECONDS);
    String name = "web.switch.example.";
    RecordSet a = new RecordSet(name, "A", 180, List.of("198.51.100.7", "198.51.100.8"), "me");
    provider.apply(zone, new ChangeSet(List.of(), List.of(a))).await(20, TimeUnit.SECONDS);
    assertThat(pdns.dig(name, "A")).containsExactlyInAnyOrder("198.51.100.7", "198.51.100.8");
    assertThat(provider.recordSets(zone, name).await(20, TimeUnit.SECONDS)).containsExactly(a);

    RecordSet cname = new RecordSet(name, "CNAME", 180, List.of("other.switch.example."), "me");
    provider.apply(zone, new ChangeSet(List.of(a), List.of(cname))).await(20, TimeUnit.SECONDS);
    assertThat(provider.recordSets(zone, name).await(20, TimeUnit.SECONDS)).containsExactly(cname);
    assertThat(pdns.dig(name, "CNAME")).containsExactly("other.switch.example.");

    provider.apply(zone, new ChangeSet(List.of(cname), List.of(a))).await(20, TimeUnit.SECONDS);
    assertThat(pdns.dig(name, "A")).containsExactlyInAnyOrder("198.51.100.7", "198.51.100.8");
    provider.apply(zone, new ChangeSet(List.of(a), List.of())).await(20, TimeUnit.SECONDS);
    assertThat(provider.recordSets(zone, name).await(20, TimeUnit.SECONDS)).isEmpty();
    assertThat(pdns.digStatus(name, "A")).isEqualTo("NXDOMAIN");
  }

  @Test
  void readingANameReturnsOnlyThatName() throws Exception {
    DnsZone zone =
        ZoneBootstrap.findOrCreate(provider, "names.example", "").await(20, TimeUnit.SECONDS);
    RecordSet x = new RecordSet("x.names.example.", "A", 180, List.of("198.51.100.1"), "me");
    RecordSet y = new RecordSet("y.names.example.", "A", 180, List.of("198.51.100.2"), "me");
    provider.apply(zone, new ChangeSet(List.of(), List.of(x, y))).await(20, TimeUnit.SECONDS);
    assertThat(provider.recordSets(zone, "x.names.example.").await(20, TimeUnit.SECONDS))
        .containsExactly(x);
    assertThat(provider.recordSets(zone, "z.names.example.").await(20, TimeUnit.SECONDS)).isEmpty();
    pdns.stop();
    pdns.start();
    assertThat(provider.recordSets(zone, "y.names.example.").await(20, TimeUnit.SECONDS))
        .containsExactly(y);
    assertThat(provider.recordSets(zone, "z.names.example.").await(20, TimeUnit.SECONDS)).isEmpty();
    assertThat(provider.recordSets(zone).await(20, TimeUnit.SECONDS)).contains(x, y);
  }

  @Test
  void loadBalancerHostnamesResolveWithTheNonBlockingClient() throws Exception {
    DnsZone zone =
        ZoneBootstrap.findOrCreate(provider, "elb.example", "").await(20, TimeUnit.SECONDS);
    String host = "lb-1.elb.example.";
    provider
        .apply(
            zone,
            new ChangeSet(
                List.of(),
                List.of(
                    new RecordSet(host, "A", 60, List.of("198.51.100.20"), null),
                    new RecordSet(host, "AAAA", 60, List.of("2001:db8::20"), null))))
        .await(20, TimeUnit.SECONDS);
    HostnameResolver resolver = new HostnameResolver(vertx, "127.0.0.1", pdns.dnsPort());
    HostnameResolver.Resolved r = resolver.resolve("lb-1.elb.example").await(20, TimeUnit.SECONDS);
    assertThat(r.ipv4()).containsExactly("198.51.100.20");
    assertThat(r.ipv6()).hasSize(1);
    assertThat(java.net.InetAddress.getByName(r.ipv6().get(0)))
        .isEqualTo(java.net.InetAddress.getByName("2001:db8::20"));
    assertThatThrownBy(() -> resolver.resolve("missing.elb.example").await(20, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("missing.elb.example");
    resolver.close().await(20, TimeUnit.SECONDS);
  }

  @Test
  void foreignRecordsReadWithoutOwner() throws Exception {
    DnsZone zone =
        ZoneBootstrap.findOrCreate(provider, "foreign.example", "").await(20, TimeUnit.SECONDS);
    pdns.putForeign(zone.id(), "x.foreign.example.", "A", "192.0.2.1");
    assertThat(provider.recordSets(zone, "x.foreign.example.").await(20, TimeUnit.SECONDS))
        .containsExactly(new RecordSet("x.foreign.example.", "A", 300, List.of("192.0.2.1"), null));
  }

  @Test
  void aWrongKeyAndADownServerAreRetryableErrorsThatNeverShowTheKey() throws Exception {
    java.nio.file.Path wrong = java.nio.file.Files.createTempFile("pier-key", "");
    java.nio.file.Files.writeString(wrong, "wrong-key-value");
    PowerDnsProvider bad = provider(pdns.apiUrl(), wrong.toString());
    assertThatThrownBy(() -> bad.zones().await(20, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(DnsException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageContaining("401")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-key-value"));
    bad.close();
    java.nio.file.Files.delete(wrong);

    PowerDnsProvider down = provider("http://127.0.0.1:1", pdns.apiKeyFile().toString());
    assertThatThrownBy(() -> down.zones().await(20, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(DnsException.class, e -> assertThat(e.retryable()).isTrue())
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(pdns.apiKey()));
    down.close();
  }

  @Test
  void aChangeSetWithOneNameInConflictIsRejectedWholeAsA422() throws Exception {
    DnsZone zone =
        ZoneBootstrap.findOrCreate(provider, "reject.example", "").await(20, TimeUnit.SECONDS);
    pdns.putForeign(zone.id(), "taken.reject.example.", "CNAME", "elsewhere.example.");
    RecordSet free = new RecordSet("free.reject.example.", "A", 180, List.of("198.51.100.1"), "me");
    RecordSet taken =
        new RecordSet("taken.reject.example.", "A", 180, List.of("198.51.100.2"), "me");
    assertThatThrownBy(
            () ->
                provider
                    .apply(zone, new ChangeSet(List.of(), List.of(free, taken)))
                    .await(20, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            DnsException.class,
            e -> {
              assertThat(e.rejected()).isTrue();
              assertThat(e.retryable()).isTrue();
            })
        .hasMessageContaining("422")
        .hasMessageContaining("taken.reject.example.");
    // One PATCH is one transaction: the good name did not land either.
    assertThat(provider.recordSets(zone, "free.reject.example.").await(20, TimeUnit.SECONDS))
        .isEmpty();

    // A label over 63 bytes is refused the same way.
    RecordSet longLabel =
        new RecordSet("x".repeat(64) + ".reject.example.", "A", 180, List.of("198.51.100.3"), "me");
    assertThatThrownBy(
            () ->
                provider
                    .apply(zone, new ChangeSet(List.of(), List.of(free, longLabel)))
                    .await(20, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(DnsException.class, e -> assertThat(e.rejected()).isTrue())
        .hasMessageContaining("422");
    provider.apply(zone, new ChangeSet(List.of(), List.of(free))).await(20, TimeUnit.SECONDS);
    assertThat(pdns.dig("free.reject.example.", "A")).containsExactly("198.51.100.1");
  }
}
