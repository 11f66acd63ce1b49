package dev.pier.dns;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.dns.DnsClient;
import java.util.List;

/**
 * Resolves load balancer hostnames (an ELB-style ingress) to addresses with Vert.x's non-blocking
 * DNS client. Fails when neither an A nor an AAAA lookup succeeds, so that a name is never
 * published half-resolved.
 */
public final class HostnameResolver {
  /** The addresses of one hostname. */
  public record Resolved(List<String> ipv4, List<String> ipv6) {}

  private final DnsClient client;

  /** Resolves through the system's name servers. */
  public HostnameResolver(Vertx vertx) {
    this.client = vertx.createDnsClient();
  }

  /** Resolves through the name server at {@code host:port}. */
  public HostnameResolver(Vertx vertx, String host, int port) {
    this.client = vertx.createDnsClient(port, host);
  }

  public Future<Resolved> resolve(String hostname) {
    Future<List<String>> v4 = client.resolveA(hostname);
    Future<List<String>> v6 = client.resolveAAAA(hostname);
    return Future.join(v4, v6)
        .transform(
            ar -> {
              if (v4.failed() && v6.failed()) {
                return Future.failedFuture(
                    DnsException.retry(
                        "cannot resolve load balancer hostname "
                            + hostname
                            + ": "
                            + v4.cause().getMessage()));
              }
              return Future.succeededFuture(
                  new Resolved(
                      v4.succeeded() ? v4.result() : List.of(),
                      v6.succeeded() ? v6.result() : List.of()));
            });
  }

  public Future<Void> close() {
    return client.close();
  }
}
