package dev.pier.cloud.webhook;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance kit run against the reference webhook, with a bearer token required. */
class ReferenceWebhookConformanceTest extends WebhookConformanceTest {
  private static final String TOKEN = "conformance-token";
  private static ReferenceWebhook webhook;

  @BeforeAll
  static void start() {
    webhook = ReferenceWebhook.start(TOKEN);
  }

  @AfterAll
  static void stop() {
    webhook.close();
  }

  @Override
  protected String webhookUrl() {
    return webhook.url();
  }

  @Override
  protected boolean listRequired() {
    return true;
  }

  @Override
  protected String webhookToken() {
    return TOKEN;
  }
}
