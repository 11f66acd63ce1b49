package dev.pier.bench;

import dev.pier.cloud.webhook.ReferenceWebhook;
import io.vertx.core.http.HttpServerOptions;
import java.time.Duration;

/**
 * The webhook benchmark's stand-in cloud, run as a process of its own: the reference webhook
 * (docs/webhook-provider.md) on 127.0.0.1, answering every call after a delay. Arguments: {@code
 * PORT DELAY_MS [LIFETIME_S]}; it prints one line once it listens and exits after its lifetime
 * (default one hour) if nobody stopped it before.
 */
public final class WebhookStandIn {
  private WebhookStandIn() {}

  public static void main(String[] args) throws InterruptedException {
    int port = Integer.parseInt(args[0]);
    Duration delay = Duration.ofMillis(Long.parseLong(args[1]));
    Duration lifetime = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 3600);
    ReferenceWebhook webhook = ReferenceWebhook.start("", new HttpServerOptions(), port, delay);
    System.out.printf(
        "webhook stand-in on %s, answering after %d ms%n", webhook.url(), delay.toMillis());
    System.out.flush();
    Thread.sleep(lifetime.toMillis());
    webhook.close();
    System.exit(0);
  }
}
