package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusReportTest {
  private static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");
  private static final Duration WARN = Duration.ofDays(30);

  private static final StatusReport REPORT =
      new StatusReport(
          List.of(
              new StatusReport.MemberRow(
                  "east",
                  "member-east",
                  true,
                  "v1.20.2",
                  "eu",
                  List.of("eu-a", "eu-b"),
                  NOW.minusSeconds(12),
                  "token",
                  NOW.plus(Duration.ofDays(200)),
                  "",
                  null),
              new StatusReport.MemberRow(
                  "west",
                  "member-west",
                  false,
                  "v1.20.2",
                  "us",
                  List.of("us-a"),
                  NOW.minusSeconds(3),
                  "token",
                  NOW.plus(Duration.ofDays(3)),
                  "probe failed: connection refused",
                  null),
              new StatusReport.MemberRow(
                  "south", "member-south", null, "", "", List.of(), null, "", null, "", null)),
          List.of(
              new StatusReport.ServiceRow(
                  "shop",
                  "web",
                  "all",
                  List.of(
                      new StatusReport.Copy("east", List.of("192.0.2.1")),
                      new StatusReport.Copy("west", List.of())),
                  null,
                  List.of())));

  @Test
  void theTableShowsEveryMemberAndWarnsAboutCredentialsNearExpiry() {
    String table = REPORT.table(NOW, WARN);
    assertThat(table.lines().toList())
        .contains(
            "MEMBER  READY    VERSION  REGION  ZONES      LAST PROBE  CREDENTIAL EXPIRES",
            "east    True     v1.20.2  eu      eu-a,eu-b  12s ago     2025-12-18T12:00:00Z (200d)",
            "west    False    v1.20.2  us      us-a       3s ago      WARN 2025-06-04T12:00:00Z (3d)",
            "south   Unknown  -        -       -          -           -",
            "  west: probe failed: connection refused",
            "  south: Pier has not reported on it yet",
            "SERVICE   PLACEMENT  COPIES     INGRESSES",
            "shop/web  all        east,west  east=192.0.2.1 west=-");
  }

  @Test
  void jsonForScripts() {
    JsonObject json = REPORT.json(NOW, WARN);
    JsonObject west = json.getJsonArray("members").getJsonObject(1);
    assertThat(west.getString("name")).isEqualTo("west");
    assertThat(west.getBoolean("ready")).isFalse();
    assertThat(west.getBoolean("credentialWarning")).isTrue();
    assertThat(west.getString("credentialExpiry")).isEqualTo("2025-06-04T12:00:00Z");
    assertThat(json.getJsonArray("members").getJsonObject(0).getBoolean("credentialWarning"))
        .isFalse();
    assertThat(json.getJsonArray("members").getJsonObject(2).getValue("ready")).isNull();
    assertThat(
            json.getJsonArray("services")
                .getJsonObject(0)
                .getJsonArray("copies")
                .getJsonObject(0)
                .getJsonArray("ingresses")
                .getString(0))
        .isEqualTo("192.0.2.1");
  }

  @Test
  void anExpiredCredentialSaysSo() {
    StatusReport r =
        new StatusReport(
            List.of(
                new StatusReport.MemberRow(
                    "east",
                    "member-east",
                    true,
                    "",
                    "",
                    List.of(),
                    NOW,
                    "token",
                    NOW.minus(Duration.ofHours(5)),
                    "",
                    null)),
            List.of());
    assertThat(r.table(NOW, WARN)).contains("EXPIRED 2025-06-01T07:00:00Z (5h ago)");
    assertThat(r.table(NOW, WARN)).contains("No federated Services.");
  }

  @Test
  void namesHeldAndDnsAnswersFollowTheServices() {
    StatusReport.ServiceRow held =
        new StatusReport.ServiceRow(
            "shop",
            "web",
            "all",
            List.of(new StatusReport.Copy("east", List.of("192.0.2.1"))),
            NOW.minus(Duration.ofMinutes(3)),
            List.of(
                new StatusReport.NameAnswer("web.shop.pier.svc.example.com.", List.of("192.0.2.1")),
                new StatusReport.NameAnswer(
                    "web.shop.pier.svc.us.example.com.",
                    List.of("CNAME web.shop.pier.svc.example.com.", "192.0.2.1"))));
    StatusReport r = new StatusReport(List.of(), List.of(held));

    assertThat(r.table(NOW, WARN).lines().toList())
        .contains(
            "  shop/web: status and DNS names held as last seen since 2025-06-01T11:57:00Z (3m ago):"
                + " too few of its members are reachable",
            "DNS NAME                           ANSWER",
            "web.shop.pier.svc.example.com.     192.0.2.1",
            "web.shop.pier.svc.us.example.com.  CNAME web.shop.pier.svc.example.com. 192.0.2.1");
    JsonObject json = r.json(NOW, WARN).getJsonArray("services").getJsonObject(0);
    assertThat(json.getString("namesHeldSince")).isEqualTo("2025-06-01T11:57:00Z");
    assertThat(json.getJsonArray("names").getJsonObject(1).getJsonArray("answers").getString(0))
        .isEqualTo("CNAME web.shop.pier.svc.example.com.");
  }

  @Test
  void oneServiceComesWithTheEventsThatExplainIt() {
    StatusReport.ServiceRow web = REPORT.services().get(0);
    List<StatusReport.EventRow> events =
        List.of(
            new StatusReport.EventRow(
                "Normal", "CreatedInCluster", NOW.minusSeconds(40), 1, "Cluster east: created"),
            new StatusReport.EventRow(
                "Warning",
                "ClusterUnreachable",
                NOW.minusSeconds(5),
                7,
                "Cluster west is not ready: its copy is not kept in sync until it is"));

    assertThat(StatusReport.detail(web, events, NOW).lines().toList())
        .contains(
            "shop/web  all        east,west  east=192.0.2.1 west=-",
            "LAST SEEN  TYPE     REASON              COUNT  MESSAGE",
            "40s ago    Normal   CreatedInCluster    1      Cluster east: created",
            "5s ago     Warning  ClusterUnreachable  7      Cluster west is not ready: its copy is"
                + " not kept in sync until it is");
    assertThat(
            StatusReport.detailJson(web, events)
                .getJsonArray("events")
                .getJsonObject(1)
                .getInteger("count"))
        .isEqualTo(7);
    assertThat(StatusReport.detail(web, List.of(), NOW)).contains("No Events.");
  }
}
