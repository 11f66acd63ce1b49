package dev.pier.dns.powerdns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.RecordSet;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PowerDnsJsonTest {
  @TempDir Path dir;

  @Test
  void patchBodyHasDeletesFirstAndTheOwnerComment() {
    RecordSet a = new RecordSet("x.example.com.", "A", 180, List.of("10.0.0.1"), "me");
    RecordSet c = new RecordSet("x.example.com.", "CNAME", 180, List.of("y.example.com."), "me");
    JsonObject body =
        new JsonObject(
            PowerDnsJson.encode(PowerDnsProvider.patchBody(new ChangeSet(List.of(a), List.of(c)))));
    var rrsets = body.getJsonArray("rrsets");
    assertThat(rrsets.getJsonObject(0).getString("changetype")).isEqualTo("DELETE");
    assertThat(rrsets.getJsonObject(0).getString("type")).isEqualTo("A");
    JsonObject replace = rrsets.getJsonObject(1);
    assertThat(replace.getString("changetype")).isEqualTo("REPLACE");
    assertThat(replace.getLong("ttl")).isEqualTo(180);
    assertThat(replace.getJsonArray("records").getJsonObject(0).getString("content"))
        .isEqualTo("y.example.com.");
    assertThat(replace.getJsonArray("comments").getJsonObject(0).getString("content"))
        .isEqualTo("pier-owner=me");
  }

  @Test
  void parseReadsTheOwnerAndSkipsDisabledRecords() {
    PowerDnsJson.Zone zone =
        PowerDnsJson.MAPPER.readValue(
            """
            {"rrsets":[
              {"name":"x.example.com.","type":"A","ttl":180,
               "records":[{"content":"10.0.0.2","disabled":false},{"content":"10.0.0.9","disabled":true}],
               "comments":[{"content":"pier-owner=me","account":"pier"}]},
              {"name":"y.example.com.","type":"TXT","ttl":60,
               "records":[{"content":"\\"hi\\"","disabled":false}],"comments":[]},
              {"name":"z.example.com.","type":"A","ttl":0,"records":[],
               "comments":[{"content":"pier-owner=me","account":"pier"}]}
            ]}
            """,
            PowerDnsJson.Zone.class);
    List<RecordSet> sets = PowerDnsProvider.parse(zone, null);
    assertThat(PowerDnsProvider.parse(zone, "y.example.com.")).hasSize(1);
    assertThat(sets)
        .containsExactly(
            new RecordSet("x.example.com.", "A", 180, List.of("10.0.0.2"), "me"),
            new RecordSet("y.example.com.", "TXT", 60, List.of("\"hi\""), null));
  }

  @Test
  void theApiKeyIsNeverShown() {
    ApiKey key = ApiKey.of("s3cr3t-value", "environment variable MY_KEY");
    assertThat(key.value()).isEqualTo("s3cr3t-value");
    assertThat(key.toString()).doesNotContain("s3cr3t").contains("MY_KEY");
    assertThatThrownBy(() -> ApiKey.of(" ", "file k")).hasMessageContaining("file k");
  }

  @Test
  void luaRecordsAreOnOnlyWhenTheServerSaysSo() {
    assertThat(
            PowerDnsProvider.luaRecordsEnabled(
                new JsonArray(
                    "[{\"name\":\"api\",\"value\":\"yes\"},"
                        + "{\"name\":\"enable-lua-records\",\"value\":\"yes\"}]")))
        .isTrue();
    assertThat(
            PowerDnsProvider.luaRecordsEnabled(
                new JsonArray("[{\"name\":\"enable-lua-records\",\"value\":\"no\"}]")))
        .isFalse();
    assertThat(PowerDnsProvider.luaRecordsEnabled(new JsonArray("[]"))).isFalse();
  }
}
