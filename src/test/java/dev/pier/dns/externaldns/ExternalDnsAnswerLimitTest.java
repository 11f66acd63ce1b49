package dev.pier.dns.externaldns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.pier.dns.DnsException;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordSet;
import dev.pier.testkit.OversizedAnswerServer;
import dev.pier.testkit.OversizedAnswerServer.Answer;
import dev.pier.testkit.OversizedAnswerServer.Body;
import dev.pier.testkit.OversizedAnswerServer.Declared;
import dev.pier.testkit.OversizedAnswerServer.Huge;
import dev.pier.util.AnswerLimit;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The external-dns provider reads {@code GET /records} up to {@code http.maxInventoryAnswerBytes},
 * whose default holds the listing of 10,000 Services with Pier's TXT registry, and every other
 * answer up to {@code http.maxAnswerBytes}; past them the call fails naming the limit and the
 * connection is closed.
 */
class ExternalDnsAnswerLimitTest {
  private static final DnsZone ZONE = new DnsZone("example.org.", "example.org.");
  private static final String MARK = "pier;cluster=0f5f6c2e-1234-4abc-9def-0123456789ab";

  private Vertx vertx;
  private OversizedAnswerServer server;
  private volatile Answer answer;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    server = OversizedAnswerServer.start(req -> answer);
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    server.close();
  }

  private ExternalDnsWebhookProvider provider(AnswerLimit inventory) {
    return new ExternalDnsWebhookProvider(
        vertx,
        new ExternalDnsOptions()
            .setUrl(server.url())
            .setTimeout(Duration.ofSeconds(30))
            .setInventoryLimit(inventory));
  }

  @Test
  void aHugeListingFailsTheReadAtTheInventoryLimitAndClosesTheConnection() throws Exception {
    answer = new Huge("[{\"dnsName\": \"a.example.org\", \"targets\": [\"");
    ExternalDnsWebhookProvider provider =
        provider(new AnswerLimit(2 << 20, "http.maxInventoryAnswerBytes"));

    Throwable thrown = catchThrowable(() -> provider.recordSets(ZONE).await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(DnsException.class)
        .hasMessage(
            "the answer of external-dns list records passed its limit of 2097152 bytes"
                + " (http.maxInventoryAnswerBytes)");
    assertThat(((DnsException) thrown).retryable()).isTrue();
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }

  @Test
  void aHugeDomainFilterFailsAtTheAnswerLimit() throws Exception {
    answer = new Huge("{\"include\": [\"");

    Throwable thrown =
        catchThrowable(() -> provider(AnswerLimit.INVENTORY).zones().await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(DnsException.class)
        .hasMessage(
            "the answer of external-dns negotiate the domain filter passed its limit of 1048576"
                + " bytes (http.maxAnswerBytes)");
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }

  @Test
  void anAnswerJustUnderTheLimitIsRead() throws Exception {
    String json = "{\"include\": [\"example.org\"]}";
    answer = new Body(json + " ".repeat((1 << 20) - json.length() - 1));

    assertThat(provider(AnswerLimit.INVENTORY).zones().await(20, TimeUnit.SECONDS))
        .containsExactly(ZONE);
  }

  @Test
  void aDeclaredLengthAboveTheLimitFailsBeforeTheBodyIsRead() throws Exception {
    answer = new Declared(1L << 30);
    long start = System.nanoTime();

    Throwable thrown =
        catchThrowable(() -> provider(AnswerLimit.INVENTORY).zones().await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("passed its limit of 1048576 bytes (http.maxAnswerBytes)")
        .hasMessageContaining("Content-Length 1073741824");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
  }

  /** The default inventory limit against the listing it is sized for. */
  @Test
  void theDefaultLimitsReadTheListingOfTenThousandServices() throws Exception {
    Buffer listing = listingOfServices(10_000);
    assertThat(listing.length()).isBetween(10_000_000, 13_000_000);
    answer = new Body(listing);
    ExternalDnsWebhookProvider provider =
        new ExternalDnsWebhookProvider(
            vertx,
            new ExternalDnsOptions().setUrl(server.url()).setTimeout(Duration.ofSeconds(30)));

    List<RecordSet> read = provider.recordSets(ZONE).await(30, TimeUnit.SECONDS);

    assertThat(read).hasSize(30_000);
    assertThat(read).allMatch(r -> MARK.equals(r.owner()));
  }

  /** Three A records per Service, each with its TXT registry record, as a webhook lists them. */
  private static Buffer listingOfServices(int services) {
    TxtRegistry registry = new TxtRegistry(ExternalDnsOptions.DEFAULT_TXT_PREFIX);
    JsonArray endpoints = new JsonArray();
    for (int i = 0; i < services; i++) {
      String service = String.format("svc-%04d.ns-%02d.pier.svc.", i, i % 100);
      String resource = String.format("service/ns-%02d/svc-%04d", i % 100, i);
      for (String place : List.of("", "eu-central.", "fsn1-dc14.eu-central.")) {
        String name = service + place + "example.org";
        endpoints.add(endpoint(name, "A", "203.0." + i % 256 + "." + i * 7 % 256));
        endpoints.add(
            endpoint(
                registry.registryName(name, "A").replaceAll("\\.$", ""),
                "TXT",
                TxtRegistry.value(MARK, resource)));
      }
    }
    return endpoints.toBuffer();
  }

  private static JsonObject endpoint(String name, String type, String target) {
    return new JsonObject()
        .put("dnsName", name)
        .put("targets", new JsonArray().add(target))
        .put("recordType", type)
        .put("recordTTL", 180)
        .put("labels", new JsonObject());
  }
}
