package dev.pier.dns.powerdns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.pier.dns.ChangeSet;
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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The PowerDNS provider reads a zone's settings and writes' answers up to {@code
 * http.maxAnswerBytes}, a zone's records up to {@code http.maxInventoryAnswerBytes}, whose default
 * holds a zone of 10,000 Services. A stand-in answers with PowerDNS's shapes: a real PowerDNS
 * cannot be made to send 64 MiB.
 */
class PowerDnsAnswerLimitTest {
  private static final DnsZone ZONE = new DnsZone("example.org.", "example.org.");
  private static final String UID = "0f5f6c2e-1234-4abc-9def-0123456789ab";

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

  private PowerDnsProvider provider(AnswerLimit inventory) {
    return new PowerDnsProvider(
        vertx,
        new PowerDnsOptions()
            .setUrl(server.url())
            .setTimeout(Duration.ofSeconds(30))
            .setApiKey(ApiKey.of("key", "test"))
            .setInventoryLimit(inventory));
  }

  @Test
  void aHugeZoneFailsTheReadAtTheInventoryLimitAndClosesTheConnection() throws Exception {
    answer = new Huge("{\"id\": \"example.org.\", \"name\": \"example.org.\", \"rrsets\": [");
    PowerDnsProvider provider = provider(new AnswerLimit(2 << 20, "http.maxInventoryAnswerBytes"));

    Throwable thrown = catchThrowable(() -> provider.recordSets(ZONE).await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(DnsException.class)
        .hasMessage(
            "the answer of PowerDNS read example.org. passed its limit of 2097152 bytes"
                + " (http.maxInventoryAnswerBytes)");
    assertThat(((DnsException) thrown).retryable()).isTrue();
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }

  @Test
  void aHugeAnswerToAZonesSettingsFailsAtTheAnswerLimit() throws Exception {
    answer = new Huge("{\"id\": \"example.org.\", \"name\": \"");
    PowerDnsProvider provider = provider(AnswerLimit.INVENTORY);

    Throwable thrown =
        catchThrowable(() -> provider.zone("example.org.").await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(DnsException.class)
        .hasMessage(
            "the answer of PowerDNS get zone example.org. passed its limit of 1048576 bytes"
                + " (http.maxAnswerBytes)");
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
    assertThat(server.written()).isLessThan(OversizedAnswerServer.STOPPED_EARLY_BYTES);
  }

  @Test
  void anAnswerJustUnderTheLimitIsRead() throws Exception {
    String json = "{\"id\": \"example.org.\", \"name\": \"example.org.\"}";
    answer = new Body(json + " ".repeat((1 << 20) - json.length() - 1));

    assertThat(provider(AnswerLimit.INVENTORY).zone("example.org.").await(20, TimeUnit.SECONDS))
        .contains(ZONE);
  }

  @Test
  void aDeclaredLengthAboveTheLimitFailsAWriteBeforeTheBodyIsRead() throws Exception {
    answer = new Declared(1L << 30);
    long start = System.nanoTime();
    ChangeSet change =
        new ChangeSet(
            List.of(),
            List.of(
                new RecordSet(
                    "a.example.org.", RecordSet.A, 30, List.of("192.0.2.1"), "pier;cluster=u")));

    Throwable thrown =
        catchThrowable(
            () -> provider(AnswerLimit.INVENTORY).apply(ZONE, change).await(20, TimeUnit.SECONDS));

    assertThat(thrown)
        .isInstanceOf(DnsException.class)
        .hasMessageContaining("passed its limit of 1048576 bytes (http.maxAnswerBytes)")
        .hasMessageContaining("Content-Length 1073741824");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(server.closedWithin(Duration.ofSeconds(10))).isTrue();
  }

  /** The default inventory limit against the zone it is sized for. */
  @Test
  void theDefaultLimitsReadAZoneOfTenThousandServices() throws Exception {
    String zone = zoneOfServices(10_000);
    assertThat(zone.length()).isBetween(7_000_000, 9_000_000);
    answer = new Body(zone);
    PowerDnsProvider provider =
        new PowerDnsProvider(
            vertx,
            new PowerDnsOptions()
                .setUrl(server.url())
                .setTimeout(Duration.ofSeconds(30))
                .setApiKey(ApiKey.of("key", "test")));

    List<RecordSet> read = provider.recordSets(ZONE).await(30, TimeUnit.SECONDS);

    assertThat(read).hasSize(30_000);
    assertThat(read).allMatch(r -> r.owner().equals("pier;cluster=" + UID));
  }

  /** A zone as PowerDNS answers it: three A records per Service, each with Pier's comment. */
  static String zoneOfServices(int services) {
    StringBuilder out =
        new StringBuilder(
            "{\"account\":\"\",\"api_rectify\":false,\"dnssec\":false,\"edited_serial\":2024120701,"
                + "\"id\":\"example.org.\",\"kind\":\"Native\",\"last_check\":0,"
                + "\"master_tsig_key_ids\":[],\"masters\":[],\"name\":\"example.org.\","
                + "\"notified_serial\":0,\"nsec3narrow\":false,\"nsec3param\":\"\",\"rrsets\":[");
    for (int i = 0; i < services; i++) {
      String service = String.format("svc-%04d.ns-%02d.pier.svc.", i, i % 100);
      for (String place : List.of("", "eu-central.", "fsn1-dc14.eu-central.")) {
        if (out.charAt(out.length() - 1) != '[') {
          out.append(',');
        }
        out.append("{\"comments\":[{\"account\":\"pier\",\"content\":\"pier-owner=pier;cluster=")
            .append(UID)
            .append("\",\"modified_at\":1733540000}],\"name\":\"")
            .append(service)
            .append(place)
            .append("example.org.\",\"records\":[{\"content\":\"203.0.")
            .append(i % 256)
            .append('.')
            .append(i * 7 % 256)
            .append("\",\"disabled\":false}],\"ttl\":180,\"type\":\"A\"}");
      }
    }
    return out.append("],\"serial\":2024120701,\"slave_tsig_key_ids\":[],\"soa_edit\":\"\",")
        .append("\"soa_edit_api\":\"DEFAULT\",\"url\":\"/api/v1/servers/localhost/zones/")
        .append("example.org.\"}")
        .toString();
  }
}
