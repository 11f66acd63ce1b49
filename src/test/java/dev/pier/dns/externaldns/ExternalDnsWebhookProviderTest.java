package dev.pier.dns.externaldns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordSet;
import dev.pier.testkit.ExternalDnsWebhookServer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What only the stand-in can show: its media types, errors, filter forms, delays, adjustments. */
class ExternalDnsWebhookProviderTest {
  private static final String MEDIA = ExternalDnsWebhookProvider.MEDIA_TYPE;
  private static final String MARK = RecordSet.ownerMark("pier", "uid-1");

  private ExternalDnsWebhookServer server;
  private Vertx vertx;
  private WebClient raw;

  @BeforeEach
  void start() {
    server = ExternalDnsWebhookServer.start(List.of("example.com", "example.org"), List.of());
    vertx = Vertx.vertx();
    raw = WebClient.create(vertx);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    server.close();
  }

  private ExternalDnsWebhookProvider provider(Duration timeout) {
    return new ExternalDnsWebhookProvider(
        vertx, new ExternalDnsOptions().setUrl(server.url()).setTimeout(timeout));
  }

  @Test
  void bothFormsOfTheDomainFilterGiveTheZones() throws Exception {
    ExternalDnsWebhookProvider p = provider(Duration.ofSeconds(5));
    assertThat(p.zones().await(10, TimeUnit.SECONDS))
        .containsExactly(
            new DnsZone("example.com.", "example.com"), new DnsZone("example.org.", "example.org"));
    server.legacyFilter(true);
    assertThat(p.zones().await(10, TimeUnit.SECONDS)).extracting(DnsZone::name).hasSize(2);
    assertThat(p.zone("example.org").await(10, TimeUnit.SECONDS)).isPresent();
  }

  @Test
  void writesGoThroughAdjustEndpointsAndKeepWhatComesBack() throws Exception {
    server.minTtl(300);
    ExternalDnsWebhookProvider p = provider(Duration.ofSeconds(5));
    DnsZone zone = p.zone("example.com").await(10, TimeUnit.SECONDS).orElseThrow();
    RecordSet a = new RecordSet("web.example.com", "A", 60, List.of("198.51.100.1"), MARK);
    p.apply(zone, new ChangeSet(List.of(), List.of(a))).await(10, TimeUnit.SECONDS);
    assertThat(server.ttl("web.example.com", "A")).isEqualTo(300);
    assertThat(server.ttl("pier-a-web.example.com", "TXT")).isEqualTo(300);
    assertThat(p.recordSets(zone, "web.example.com.").await(10, TimeUnit.SECONDS))
        .containsExactly(new RecordSet("web.example.com.", "A", 300, a.records(), MARK));
    // The raised TTL reads back different from Pier's; rewriting it changes nothing: no write.
    int writes = server.changeRequests();
    p.apply(zone, new ChangeSet(List.of(), List.of(a))).await(10, TimeUnit.SECONDS);
    assertThat(server.changeRequests()).isEqualTo(writes);
    // Without a name scheme the registry record has no resource part.
    assertThat(server.targets("pier-a-web.example.com", "TXT"))
        .containsExactly("\"heritage=pier,pier/owner=pier,pier/cluster=uid-1\"");
  }

  @Test
  void aSlowProviderRunsIntoTheTotalTimeoutAndIsRetried() throws Exception {
    server.delay(Duration.ofSeconds(3));
    ExternalDnsWebhookProvider p = provider(Duration.ofMillis(300));
    long start = System.nanoTime();
    assertThatThrownBy(() -> p.zones().await(10, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .satisfies(e -> assertThat(((DnsException) e).retryable()).isTrue());
    assertThatThrownBy(
            () ->
                p.recordSets(new DnsZone("example.com.", "example.com"))
                    .await(10, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void theStandInInsistsOnTheMediaType() throws Exception {
    HttpResponse<Buffer> r =
        raw.getAbs(server.url() + "/")
            .putHeader("Accept", "application/json")
            .send()
            .await(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(406);
    r = raw.getAbs(server.url() + "/records").send().await(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(406);
    r =
        raw.getAbs(server.url() + "/")
            .putHeader("Accept", MEDIA)
            .send()
            .await(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.getHeader("Content-Type")).isEqualTo(MEDIA);
    r =
        raw.postAbs(server.url() + "/records")
            .putHeader("Content-Type", "application/json")
            .sendBuffer(Buffer.buffer("{}"))
            .await(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(415);
    r =
        raw.postAbs(server.url() + "/adjustendpoints")
            .putHeader("Accept", MEDIA)
            .sendBuffer(Buffer.buffer("[]"))
            .await(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(415);
  }

  @Test
  void malformedChangesAre400AndChangesItCannotApplyAre500AllOrNothing() throws Exception {
    assertThat(post("/records", "not json").statusCode()).isEqualTo(400);
    assertThat(post("/records", "{\"Create\":{}}").statusCode()).isEqualTo(400);
    assertThat(post("/records", "{\"Create\":[{\"targets\":[]}]}").statusCode()).isEqualTo(400);
    assertThat(
            post(
                    "/records",
                    "{\"UpdateOld\":[{\"dnsName\":\"a.example.com\",\"recordType\":\"A\"}]}")
                .statusCode())
        .isEqualTo(400);
    assertThat(post("/adjustendpoints", "{}").statusCode()).isEqualTo(400);
    JsonObject good =
        ExternalDnsWebhookProvider.endpoint("ok.example.com", "A", 60, List.of("1.2.3.4"));
    JsonObject outside =
        ExternalDnsWebhookProvider.endpoint("x.example.net", "A", 60, List.of("1.2.3.4"));
    HttpResponse<Buffer> r =
        post(
            "/records",
            new JsonObject().put("Create", new JsonArray().add(good).add(outside)).encode());
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.bodyAsString()).contains("outside the domain filter");
    assertThat(server.records()).isEmpty();
    // Keys in any case, as external-dns's Go decoder reads them.
    assertThat(
            post("/records", new JsonObject().put("create", new JsonArray().add(good)).encode())
                .statusCode())
        .isEqualTo(204);
    assertThat(server.records()).hasSize(1);
  }

  @Test
  void theProviderMapsRefusalsToRejectedAndLeavesNothingHalfDone() throws Exception {
    ExternalDnsWebhookProvider p = provider(Duration.ofSeconds(5));
    DnsZone zone = p.zone("example.com").await(10, TimeUnit.SECONDS).orElseThrow();
    // Another writer's AAAA beside the name where Pier puts a CNAME: the server refuses.
    server.put("alias.example.com", "AAAA", 60, "2001:db8::1");
    RecordSet alias =
        new RecordSet("alias.example.com", "CNAME", 60, List.of("web.example.com."), MARK);
    assertThatThrownBy(
            () ->
                p.apply(zone, new ChangeSet(List.of(), List.of(alias))).await(10, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .satisfies(e -> assertThat(((DnsException) e).rejected()).isTrue())
        .hasMessageContaining("HTTP 500");
    assertThat(server.records()).hasSize(1);
  }

  @Test
  void createZoneIsNotPartOfTheProtocol() {
    assertThatThrownBy(
            () ->
                provider(Duration.ofSeconds(1)).createZone("x.example").await(5, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("no call for it");
    assertThat(server.changeRequests()).isZero();
  }

  @Test
  void anEndpointDroppedByAdjustEndpointsOrARegistryNameTooLongIsRefusedUnwritten()
      throws Exception {
    server.unsupported("AAAA");
    ExternalDnsWebhookProvider p = provider(Duration.ofSeconds(5));
    DnsZone zone = p.zone("example.com").await(10, TimeUnit.SECONDS).orElseThrow();
    RecordSet v6 = new RecordSet("v6.example.com", "AAAA", 60, List.of("2001:db8::2"), MARK);
    assertThatThrownBy(
            () -> p.apply(zone, new ChangeSet(List.of(), List.of(v6))).await(10, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .satisfies(e -> assertThat(((DnsException) e).rejected()).isTrue())
        .hasMessageContaining("adjustendpoints");
    String label = "l".repeat(60);
    RecordSet longer = new RecordSet(label + ".example.com", "A", 60, List.of("192.0.2.1"), MARK);
    assertThatThrownBy(
            () ->
                p.apply(zone, new ChangeSet(List.of(), List.of(longer)))
                    .await(10, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .satisfies(e -> assertThat(((DnsException) e).rejected()).isTrue())
        .hasMessageContaining("pier-a-" + label);
    assertThat(server.records()).isEmpty();
    assertThat(server.changeRequests()).isZero();
  }

  @Test
  void excludedSubdomainsAreRefusedByTheServer() throws Exception {
    server.close();
    server = ExternalDnsWebhookServer.start(List.of("example.com"), List.of("private.example.com"));
    ExternalDnsWebhookProvider p = provider(Duration.ofSeconds(5));
    assertThat(p.zones().await(10, TimeUnit.SECONDS))
        .extracting(DnsZone::name)
        .containsExactly("example.com.");
    DnsZone zone = p.zone("example.com").await(10, TimeUnit.SECONDS).orElseThrow();
    RecordSet hidden = new RecordSet("db.private.example.com", "A", 60, List.of("192.0.2.9"), MARK);
    assertThatThrownBy(
            () ->
                p.apply(zone, new ChangeSet(List.of(), List.of(hidden)))
                    .await(10, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("outside the domain filter");
    assertThat(server.records()).isEmpty();
  }

  @Test
  void readsStartedTogetherShareOneListingAndAWriteEndsTheSharing() throws Exception {
    server.delay(Duration.ofMillis(200));
    ExternalDnsWebhookProvider p = provider(Duration.ofSeconds(5));
    DnsZone zone = new DnsZone("example.com.", "example.com");
    List<io.vertx.core.Future<List<RecordSet>>> reads =
        List.of("a", "b", "c", "d").stream()
            .map(n -> p.recordSets(zone, n + ".example.com"))
            .toList();
    io.vertx.core.Future.all(reads).await(10, TimeUnit.SECONDS);
    assertThat(server.listRequests()).isEqualTo(1);

    RecordSet a = new RecordSet("a.example.com", "A", 60, List.of("192.0.2.1"), MARK);
    p.apply(zone, new ChangeSet(List.of(), List.of(a))).await(10, TimeUnit.SECONDS);
    assertThat(p.recordSets(zone, "a.example.com").await(10, TimeUnit.SECONDS)).containsExactly(a);
    assertThat(server.listRequests()).isEqualTo(3);
  }

  private HttpResponse<Buffer> post(String path, String body) throws Exception {
    return raw.postAbs(server.url() + path)
        .putHeader("Accept", MEDIA)
        .putHeader("Content-Type", MEDIA)
        .sendBuffer(Buffer.buffer(body))
        .await(10, TimeUnit.SECONDS);
  }
}
