package dev.pier.dns.externaldns;

import dev.pier.testkit.ExternalDnsWebhookServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit run against the stand-in webhook provider of the test kit. */
class StandInConformanceTest extends ExternalDnsConformanceTest {
  private static ExternalDnsWebhookServer server;

  @BeforeAll
  static void start() {
    server = ExternalDnsWebhookServer.start(List.of("kit.example"), List.of("private.kit.example"));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Override
  protected String webhookUrl() {
    return server.url();
  }

  @Override
  protected String domain() {
    return "kit.example";
  }
}
