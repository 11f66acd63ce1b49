package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.dns.DnsNames;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceNamesTest {
  private static final DnsNames NAMES = new DnsNames("pier", "example.com");

  @Test
  void theGlobalNameThenOnePerRegionThenOnePerZoneOfTheMembersWithACopy() {
    assertThat(
            ServiceNames.of(
                NAMES,
                "shop",
                "web",
                List.of("east", "west", "north"),
                Map.of(
                    "east", new ServiceNames.Place("eu", List.of("eu-b", "eu-a")),
                    "west", new ServiceNames.Place("us", List.of("us-a")),
                    "north", new ServiceNames.Place("eu", List.of("eu-a")))))
        .containsExactly(
            "web.shop.pier.svc.example.com.",
            "web.shop.pier.svc.eu.example.com.",
            "web.shop.pier.svc.us.example.com.",
            "web.shop.pier.svc.eu-a.eu.example.com.",
            "web.shop.pier.svc.eu-b.eu.example.com.",
            "web.shop.pier.svc.us-a.us.example.com.");
  }

  @Test
  void aMemberWithoutAKnownRegionAddsOnlyToTheGlobalName() {
    assertThat(
            ServiceNames.of(
                NAMES,
                "shop",
                "web",
                List.of("configured", "south"),
                Map.of("south", new ServiceNames.Place("", List.of()))))
        .containsExactly("web.shop.pier.svc.example.com.");
  }
}
