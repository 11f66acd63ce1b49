package dev.pier.dns.externaldns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordDiff;
import dev.pier.dns.RecordSet;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit for external-dns webhook providers Pier writes through. Extend it, return the
 * provider's base URL and one domain of its filter Pier may write below, and run it with JUnit 5:
 * it drives the provider through Pier's own client, {@link ExternalDnsWebhookProvider}, plus raw
 * HTTP for records of other writers. Each test writes below a fresh label and removes what it
 * wrote.
 */
public abstract class ExternalDnsConformanceTest {
  static final String OWNER = "kit";
  static final String UID = "9d0c7a7e-0000-4000-8000-c0f0c0f0c0f0";
  static final String MARK = RecordSet.ownerMark(OWNER, UID);
  static final String MEDIA = ExternalDnsWebhookProvider.MEDIA_TYPE;

  /** The webhook provider's base URL. */
  protected abstract String webhookUrl();

  /** A domain of the provider's filter, which the kit may write below. */
  protected abstract String domain();

  protected Vertx vertx;
  protected ExternalDnsWebhookProvider provider;
  protected WebClient raw;
  protected DnsZone zone;

  /** A fresh label per test: every name of the test is below {@code <run>.<domain>}. */
  protected String run;

  private DnsNames names;

  @BeforeEach
  void connect() throws Exception {
    vertx = Vertx.vertx();
    run = "k" + UUID.randomUUID().toString().substring(0, 8);
    names = new DnsNames("kit", run + "." + domain());
    provider = provider(Duration.ofSeconds(30));
    raw = WebClient.create(vertx);
    zone = provider.zone(domain()).await(30, TimeUnit.SECONDS).orElseThrow();
  }

  protected ExternalDnsWebhookProvider provider(Duration timeout) {
    return new ExternalDnsWebhookProvider(
        vertx, new ExternalDnsOptions().setUrl(webhookUrl()).setTimeout(timeout).setNames(names));
  }

  @AfterEach
  void disconnect() throws Exception {
    try {
      String below = "." + run + "." + DnsNames.canonical(domain());
      JsonArray leftovers = new JsonArray();
      for (Object o : records()) {
        JsonObject e = (JsonObject) o;
        if (DnsNames.canonical(e.getString("dnsName")).endsWith(below)) {
          leftovers.add(e);
        }
      }
      if (!leftovers.isEmpty()) {
        post("/records", changes(new JsonArray(), leftovers));
      }
    } finally {
      provider.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** {@code <svc>.<ns>.kit.svc.<run>.<domain>}: a name of Pier's scheme. */
  protected String name(String service) {
    return names.global("ns", service);
  }

  protected static RecordSet a(String name, String... ips) {
    return new RecordSet(name, "A", 60, List.of(ips), MARK);
  }

  protected static RecordSet cname(String name, String target) {
    return new RecordSet(name, "CNAME", 60, List.of(target), MARK);
  }

  protected List<RecordSet> at(String name) throws Exception {
    return provider.recordSets(zone, name).await(30, TimeUnit.SECONDS);
  }

  protected void apply(List<RecordSet> deletes, List<RecordSet> replaces) throws Exception {
    provider.apply(zone, new ChangeSet(deletes, replaces)).await(30, TimeUnit.SECONDS);
  }

  protected JsonArray records() throws Exception {
    HttpResponse<Buffer> r =
        raw.getAbs(webhookUrl() + "/records")
            .putHeader("Accept", MEDIA)
            .send()
            .await(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    return r.bodyAsJsonArray();
  }

  /** The raw endpoint {@code name type}, or empty. */
  protected Optional<JsonObject> raw(String name, String type) throws Exception {
    for (Object o : records()) {
      JsonObject e = (JsonObject) o;
      if (DnsNames.canonical(e.getString("dnsName")).equals(DnsNames.canonical(name))
          && type.equals(e.getString("recordType"))) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  protected HttpResponse<Buffer> post(String path, Object body) throws Exception {
    return raw.postAbs(webhookUrl() + path)
        .putHeader("Accept", MEDIA)
        .putHeader("Content-Type", MEDIA)
        .sendBuffer(Buffer.buffer(body.toString()))
        .await(30, TimeUnit.SECONDS);
  }

  protected static JsonObject changes(JsonArray create, JsonArray delete) {
    return new JsonObject()
        .put("Create", create)
        .put("UpdateOld", new JsonArray())
        .put("UpdateNew", new JsonArray())
        .put("Delete", delete);
  }

  protected static JsonObject endpoint(String name, String type, String... targets) {
    return ExternalDnsWebhookProvider.endpoint(name, type, 60, List.of(targets));
  }

  /** Writes records as another writer would, through the protocol. */
  protected void foreign(JsonObject... endpoints) throws Exception {
    HttpResponse<Buffer> r =
        post("/records", changes(new JsonArray(List.of((Object[]) endpoints)), new JsonArray()));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(204);
  }

  @Test
  void theZonesAreTheDomainsOfTheFilterAndNoneCanBeCreated() throws Exception {
    assertThat(provider.zones().await(30, TimeUnit.SECONDS))
        .extracting(DnsZone::name)
        .contains(DnsNames.canonical(domain()));
    assertThat(zone.id()).isEqualTo(DnsNames.canonical(domain()));
    assertThat(provider.zone("nowhere.invalid").await(30, TimeUnit.SECONDS)).isEmpty();
    assertThatThrownBy(() -> provider.createZone("new.invalid").await(30, TimeUnit.SECONDS))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("cannot create zone new.invalid.")
        .hasMessageContaining("domain filter")
        .satisfies(e -> assertThat(((DnsException) e).retryable()).isFalse());
  }

  @Test
  void writeReadReplaceAndDeleteWithTheRegistryRecord() throws Exception {
    String web = name("web");
    apply(List.of(), List.of(a(web, "198.51.100.8", "198.51.100.7")));
    assertThat(at(web)).containsExactly(a(web, "198.51.100.7", "198.51.100.8"));
    assertThat(raw("pier-a-" + web, "TXT").orElseThrow().getJsonArray("targets"))
        .containsExactly(
            "\"heritage=pier,pier/owner=kit,pier/cluster="
                + UID
                + ",pier/resource=service/ns/web\"");
    // The registry record is Pier's bookkeeping, not an rrset of the zone.
    assertThat(provider.recordSets(zone).await(30, TimeUnit.SECONDS))
        .extracting(RecordSet::name)
        .doesNotContain(DnsNames.canonical("pier-a-" + web));

    apply(List.of(), List.of(a(web, "198.51.100.9")));
    assertThat(at(web)).containsExactly(a(web, "198.51.100.9"));

    apply(List.of(a(web, "198.51.100.9")), List.of());
    assertThat(at(web)).isEmpty();
    assertThat(raw(web, "A")).isEmpty();
    assertThat(raw("pier-a-" + web, "TXT")).isEmpty();
  }

  @Test
  void anAddressNameBecomesAnAliasAndBackInOneRequestEach() throws Exception {
    String zoneName = names.zone("ns", "api", "z1", "r1");
    String region = names.region("ns", "api", "r1");
    apply(List.of(), List.of(a(zoneName, "198.51.100.1")));
    apply(List.of(a(zoneName, "198.51.100.1")), List.of(cname(zoneName, region)));
    assertThat(at(zoneName)).containsExactly(cname(zoneName, region));
    assertThat(at(zoneName).get(0).records().get(0)).endsWith(".");
    assertThat(raw("pier-cname-" + zoneName, "TXT")).isPresent();
    assertThat(raw("pier-a-" + zoneName, "TXT")).isEmpty();

    apply(List.of(cname(zoneName, region)), List.of(a(zoneName, "198.51.100.2")));
    assertThat(at(zoneName)).containsExactly(a(zoneName, "198.51.100.2"));
    assertThat(raw("pier-cname-" + zoneName, "TXT")).isEmpty();
    assertThat(raw(zoneName, "CNAME")).isEmpty();
  }

  @Test
  void recordsOfOtherWritersAreNotPiersAndNeverChanged() throws Exception {
    String bare = name("bare");
    String managed = name("managed");
    String squatted = name("squatted");
    foreign(
        endpoint(bare, "A", "203.0.113.1"),
        endpoint(managed, "A", "203.0.113.2"),
        endpoint("a-" + managed, "TXT", "\"heritage=external-dns,external-dns/owner=default\""),
        endpoint(
            "pier-a-" + squatted, "TXT", "\"heritage=external-dns,external-dns/owner=default\""));

    assertThat(at(bare)).extracting(RecordSet::owner).containsOnlyNulls();
    assertThat(at(managed)).extracting(RecordSet::owner).containsOnlyNulls();
    // A TXT at a registry name that Pier did not write is an ordinary, foreign, TXT rrset.
    assertThat(at("pier-a-" + squatted))
        .singleElement()
        .satisfies(t -> assertThat(t.type()).isEqualTo("TXT"))
        .satisfies(t -> assertThat(t.owner()).isNull());

    // The diff leaves foreign names alone ...
    RecordDiff.Result diff =
        RecordDiff.compute(
            Map.of(bare, List.of(a(bare, "198.51.100.1"))), Map.of(bare, at(bare)), MARK);
    assertThat(diff.changes().isEmpty()).isTrue();
    assertThat(diff.conflicts()).hasSize(1);

    // ... and the provider refuses to write over them even when asked.
    for (String n : List.of(bare, managed, squatted)) {
      assertThatThrownBy(() -> apply(List.of(), List.of(a(n, "198.51.100.1"))))
          .isInstanceOf(DnsException.class)
          .satisfies(e -> assertThat(((DnsException) e).rejected()).isTrue());
    }
    assertThatThrownBy(() -> apply(List.of(a(bare, "203.0.113.1")), List.of()))
        .isInstanceOf(DnsException.class);
    assertThat(raw(bare, "A").orElseThrow().getJsonArray("targets")).containsExactly("203.0.113.1");
    assertThat(raw(managed, "A").orElseThrow().getJsonArray("targets"))
        .containsExactly("203.0.113.2");
    assertThat(raw("pier-a-" + squatted, "TXT").orElseThrow().getJsonArray("targets"))
        .containsExactly("\"heritage=external-dns,external-dns/owner=default\"");
    assertThat(raw(squatted, "A")).isEmpty();
  }

  @Test
  void anotherClustersRecordsAreReadWithItsMarkAndNotDeleted() throws Exception {
    String shared = name("shared");
    String other = RecordSet.ownerMark(OWNER, "another-cluster");
    apply(List.of(), List.of(new RecordSet(shared, "A", 60, List.of("198.51.100.3"), other)));
    assertThat(at(shared)).singleElement().satisfies(r -> assertThat(r.owner()).isEqualTo(other));
    assertThatThrownBy(() -> apply(List.of(a(shared, "198.51.100.3")), List.of()))
        .isInstanceOf(DnsException.class)
        .satisfies(e -> assertThat(((DnsException) e).rejected()).isTrue());
    assertThatThrownBy(() -> apply(List.of(), List.of(a(shared, "198.51.100.4"))))
        .isInstanceOf(DnsException.class)
        .satisfies(e -> assertThat(((DnsException) e).rejected()).isTrue());
    assertThat(raw(shared, "A").orElseThrow().getJsonArray("targets"))
        .containsExactly("198.51.100.3");
  }

  @Test
  void aRecordOfTheOldSchemeIsTakenOverWithTheClusterMark() throws Exception {
    String old = name("old");
    apply(List.of(), List.of(new RecordSet(old, "A", 60, List.of("198.51.100.5"), OWNER)));
    assertThat(at(old)).singleElement().satisfies(r -> assertThat(r.owner()).isEqualTo(OWNER));
    RecordDiff.Result diff =
        RecordDiff.compute(
            Map.of(old, List.of(a(old, "198.51.100.5"))), Map.of(old, at(old)), MARK, OWNER);
    apply(diff.changes().deletes(), diff.changes().replaces());
    assertThat(at(old)).containsExactly(a(old, "198.51.100.5"));
    assertThat(raw("pier-a-" + old, "TXT").orElseThrow().getJsonArray("targets").getString(0))
        .contains("pier/cluster=" + UID);
  }

  @Test
  void aNameOutsideTheFilterIsRefused() throws Exception {
    String outside = "web." + run + ".outside.invalid.";
    assertThatThrownBy(() -> apply(List.of(), List.of(a(outside, "198.51.100.1"))))
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("outside the zone");
    HttpResponse<Buffer> r =
        post(
            "/records",
            changes(new JsonArray().add(endpoint(outside, "A", "198.51.100.1")), new JsonArray()));
    assertThat(r.statusCode()).isGreaterThanOrEqualTo(400);
    assertThat(raw(outside, "A")).isEmpty();
  }
}
