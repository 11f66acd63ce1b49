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
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
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

  private static <T> T await(Future<T> f) throws Exception {
    try {
      return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }

  @Test
  void aMissingZoneIsCreatedOnceThenFoundByNameOrId() throws Exception {
    DnsZone created = await(ZoneBootstrap.findOrCreate(provider, "boot.example", ""));
    assertThat(created.name()).isEqualTo("boot.example.");
    DnsZone again = await(ZoneBootstrap.findOrCreate(provider, "boot.example.", ""));
    assertThat(again).isEqualTo(created);
    assertThat(await(ZoneBootstrap.findOrCreate(provider, "", created.id()))).isEqualTo(created);
    assertThat(await(provider.zone(created.id()))).contains(created);
    assertThat(await(provider.zone("nowhere.example."))).isEmpty();
    assertThat(await(provider.zones()).stream().filter(z -> z.name().equals("boot.example.")))
        .hasSize(1);
    assertThatThrownBy(() -> await(ZoneBootstrap.findOrCreate(provider, "", "nowhere.example.")))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("nowhere.example.");
  }

  @Test
  void aToCnameAndBackInOnePatchEachWithTheOwnerMark() throws Exception {
    DnsZone zone = await(ZoneBootstrap.findOrCreate(provider, "switch.example", ""));
    String name = "web.switch.example.";
    RecordSet a = new RecordSet(name, "A", 180, List.of("198.51.100.7", "198.51.100.8"), "me");
    await(provider.apply(zone, new ChangeSet(List.of(), List.of(a))));
    assertThat(pdns.dig(name, "A")).containsExactlyInAnyOrder("198.51.100.7", "198.51.100.8");
    assertThat(await(provider.recordSets(zone, name))).containsExactly(a);

    RecordSet cname = new RecordSet(name, "CNAME", 180, List.of("other.switch.example."), "me");
    await(provider.apply(zone, new ChangeSet(List.of(a), List.of(cname))));
    assertThat(await(provider.recordSets(zone, name))).containsExactly(cname);
    assertThat(pdns.dig(name, "CNAME")).containsExactly("other.switch.example.");

    await(provider.apply(zone, new ChangeSet(List.of(cname), List.of(a))));
    assertThat(pdns.dig(name, "A")).containsExactlyInAnyOrder("198.51.100.7", "198.51.100.8");
    await(provider.apply(zone, new ChangeSet(List.of(a), List.of())));
    assertThat(await(provider.recordSets(zone, name))).isEmpty();
    assertThat(pdns.digStatus(name, "A")).isEqualTo("NXDOMAIN");
  }

  @Test
  void readingANameReturnsOnlyThatName() throws Exception {
    DnsZone zone = await(ZoneBootstrap.findOrCreate(provider, "names.example", ""));
    RecordSet x = new RecordSet("x.names.example.", "A", 180, List.of("198.51.100.1"), "me");
    RecordSet y = new RecordSet("y.names.example.", "A", 180, List.of("198.51.100.2"), "me");
    await(provider.apply(zone, new ChangeSet(List.of(), List.of(x, y))));
    assertThat(await(provider.recordSets(zone, "x.names.example."))).containsExactly(x);
    assertThat(await(provider.recordSets(zone, "z.names.example."))).isEmpty();
    pdns.stop();
    pdns.start();
    assertThat(await(provider.recordSets(zone, "y.names.example."))).containsExactly(y);
    assertThat(await(provider.recordSets(zone, "z.names.example."))).isEmpty();
    assertThat(await(provider.recordSets(zone))).contains(x, y);
  }

  @Test
  void loadBalancerHostnamesResolveWithTheNonBlockingClient() throws Exception {
    DnsZone zone = await(ZoneBootstrap.findOrCreate(provider, "elb.example", ""));
    String host = "lb-1.elb.example.";
    await(
        provider.apply(
            zone,
            new ChangeSet(
                List.of(),
                List.of(
                    new RecordSet(host, "A", 60, List.of("198.51.100.20"), null),
                    new RecordSet(host, "AAAA", 60, List.of("2001:db8::20"), null)))));
    HostnameResolver resolver = new HostnameResolver(vertx, "127.0.0.1", pdns.dnsPort());
    HostnameResolver.Resolved r = await(resolver.resolve("lb-1.elb.example"));
    assertThat(r.ipv4()).containsExactly("198.51.100.20");
    assertThat(r.ipv6()).hasSize(1);
    assertThat(java.net.InetAddress.getByName(r.ipv6().get(0)))
        .isEqualTo(java.net.InetAddress.getByName("2001:db8::20"));
    assertThatThrownBy(() -> await(resolver.resolve("missing.elb.example")))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("missing.elb.example");
    await(resolver.close());
  }

  @Test
  void foreignRecordsReadWithoutOwner() throws Exception {
    DnsZone zone = await(ZoneBootstrap.findOrCreate(provider, "foreign.example", ""));
    pdns.putForeign(zone.id(), "x.foreign.example.", "A", "192.0.2.1");
    assertThat(await(provider.recordSets(zone, "x.foreign.example.")))
        .containsExactly(new RecordSet("x.foreign.example.", "A", 300, List.of("192.0.2.1"), null));
  }

  @Test
  void aWrongKeyAndADownServerAreRetryableErrorsThatNeverShowTheKey() throws Exception {
    java.nio.file.Path wrong = java.nio.file.Files.createTempFile("pier-key", "");
    java.nio.file.Files.writeString(wrong, "wrong-key-value");
    PowerDnsProvider bad = provider(pdns.apiUrl(), wrong.toString());
    assertThatThrownBy(() -> await(bad.zones()))
        .isInstanceOfSatisfying(DnsException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageContaining("401")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-key-value"));
    bad.close();
    java.nio.file.Files.delete(wrong);

    PowerDnsProvider down = provider("http://127.0.0.1:1", pdns.apiKeyFile().toString());
    assertThatThrownBy(() -> await(down.zones()))
        .isInstanceOfSatisfying(DnsException.class, e -> assertThat(e.retryable()).isTrue())
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(pdns.apiKey()));
    down.close();
  }
}
