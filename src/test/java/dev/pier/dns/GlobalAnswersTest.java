package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The global name's answers under each strategy, and that region and zone names keep theirs. */
class GlobalAnswersTest {
  private static final DnsNames NAMES = new DnsNames("pier", "example.com");
  private static final String G = "web.ns.pier.svc.example.com.";
  private static final String EU = "web.ns.pier.svc.eu.example.com.";

  private static ServingCluster east(boolean healthy) {
    return new ServingCluster(
        new ClusterLocation("east", "eu", List.of("eu-a")),
        List.of("192.0.2.1"),
        List.of("2001:db8::1"),
        healthy);
  }

  private static ServingCluster west(boolean healthy) {
    return new ServingCluster(
        new ClusterLocation("west", "us", List.of("us-a")),
        List.of("192.0.2.2", "192.0.2.3"),
        List.of(),
        healthy);
  }

  private static AnswerPolicy policy(DnsStrategy s) {
    Map<String, List<String>> views = new LinkedHashMap<>();
    views.put("eu", List.of("10.1.0.0/16", "2001:db8:1::/48"));
    views.put("us", List.of("10.2.0.0/16"));
    return new AnswerPolicy(s, 60, 0, views);
  }

  private static List<RecordSet> global(DnsStrategy s, ServingCluster... serving) {
    return DesiredRecords.compute(NAMES, "ns", "web", List.of(serving), policy(s), "me").get(G);
  }

  @Test
  void roundRobinListsEveryHealthyAddress() {
    assertThat(global(DnsStrategy.ROUND_ROBIN, east(true), west(true)))
        .containsExactly(
            new RecordSet(G, "A", 60, List.of("192.0.2.1", "192.0.2.2", "192.0.2.3"), "me"),
            new RecordSet(G, "AAAA", 60, List.of("2001:db8::1"), "me"));
  }

  @Test
  void failoverAnswersTheFirstEntryWithHealthyAddressesThenTheNext() {
    DnsStrategy usFirst = DnsStrategy.failover(List.of("us", "eu"));
    assertThat(global(usFirst, east(true), west(true)))
        .containsExactly(new RecordSet(G, "A", 60, List.of("192.0.2.2", "192.0.2.3"), "me"));
    assertThat(global(usFirst, east(true), west(false)))
        .containsExactly(
            new RecordSet(G, "A", 60, List.of("192.0.2.1"), "me"),
            new RecordSet(G, "AAAA", 60, List.of("2001:db8::1"), "me"));
    // Members by name too; clusters no entry names come last.
    assertThat(global(DnsStrategy.failover(List.of("east")), east(false), west(true)))
        .containsExactly(new RecordSet(G, "A", 60, List.of("192.0.2.2", "192.0.2.3"), "me"));
    assertThat(global(usFirst, east(false), west(false))).isEmpty();
  }

  @Test
  void failoverLeavesRegionAndZoneNamesAlone() {
    var d =
        DesiredRecords.compute(
            NAMES,
            "ns",
            "web",
            List.of(east(true), west(true)),
            policy(DnsStrategy.failover(List.of("us", "eu"))),
            "me");
    assertThat(d.get(EU))
        .containsExactly(
            new RecordSet(EU, "A", 60, List.of("192.0.2.1"), "me"),
            new RecordSet(EU, "AAAA", 60, List.of("2001:db8::1"), "me"));
  }

  @Test
  void weightedIsOneLuaRrsetPickingByWeightWithTheShortTtl() {
    List<RecordSet> g =
        global(DnsStrategy.weighted(Map.of("eu", 3, "us", 1)), east(true), west(true));
    // us's weight is shared by its two addresses; eu alone has an IPv6 address.
    assertThat(g)
        .containsExactly(
            new RecordSet(
                G,
                "LUA",
                0,
                List.of(
                    "A \"pickwrandom({{3000,'192.0.2.1'},{500,'192.0.2.2'},{500,'192.0.2.3'}})\"",
                    "AAAA \"pickwrandom({{3000,'2001:db8::1'}})\""),
                "me"));
  }

  @Test
  void weightedWithoutAnyWeightedHealthyAddressAnswersEveryHealthyOneEqually() {
    List<RecordSet> g =
        global(DnsStrategy.weighted(Map.of("eu", 1, "us", 0)), east(false), west(true));
    assertThat(g.get(0).records())
        .containsExactly("A \"pickwrandom({{1000,'192.0.2.2'},{1000,'192.0.2.3'}})\"");
  }

  @Test
  void viewsAnswerTheClientsRegionAndEveryoneElseEverything() {
    List<RecordSet> g = global(DnsStrategy.VIEWS, east(true), west(true));
    assertThat(g)
        .containsExactly(
            new RecordSet(
                G,
                "LUA",
                60,
                List.of(
                    "A \";if netmask({'10.1.0.0/16','2001:db8:1::/48'}) then return {'192.0.2.1'}"
                        + " end if netmask({'10.2.0.0/16'}) then return {'192.0.2.2','192.0.2.3'}"
                        + " end return {'192.0.2.1','192.0.2.2','192.0.2.3'}\"",
                    "AAAA \";if netmask({'10.1.0.0/16','2001:db8:1::/48'}) then return"
                        + " {'2001:db8::1'} end return {'2001:db8::1'}\""),
                "me"));
  }

  @Test
  void aViewWhoseRegionHasNoHealthyAddressFallsToEverything() {
    List<RecordSet> g = global(DnsStrategy.VIEWS, east(false), west(true));
    assertThat(g.get(0).records())
        .containsExactly(
            "A \";if netmask({'10.2.0.0/16'}) then return {'192.0.2.2','192.0.2.3'} end return"
                + " {'192.0.2.2','192.0.2.3'}\"");
    // No listed region healthy at all: plain records.
    ServingCluster other =
        new ServingCluster(
            new ClusterLocation("south", "ap", List.of()), List.of("192.0.2.9"), List.of(), true);
    assertThat(global(DnsStrategy.VIEWS, east(false), other))
        .containsExactly(new RecordSet(G, "A", 60, List.of("192.0.2.9"), "me"));
  }

  @Test
  void nothingButLiteralAddressesReachesLuaCode() {
    ServingCluster evil =
        new ServingCluster(
            new ClusterLocation("east", "eu", List.of()),
            List.of("1.2.3.4'}) os.exit() --"),
            List.of(),
            true);
    assertThat(global(DnsStrategy.weighted(Map.of("eu", 1)), evil, west(true)).get(0).records())
        .containsExactly("A \"pickwrandom({{1000,'192.0.2.2'},{1000,'192.0.2.3'}})\"");
  }
}
