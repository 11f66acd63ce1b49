package dev.pier.cli;

import dev.pier.dns.DnsNames;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.dns.DnsClient;
import io.vertx.core.dns.DnsClientOptions;
import io.vertx.core.dns.DnsException;
import io.vertx.core.dns.DnsResponseCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Asks a DNS server what it answers now for each name: its CNAME (Pier's fallback up a level), then
 * its A and AAAA addresses, or {@code NXDOMAIN}. Every query has a deadline.
 */
final class NameLookup implements AutoCloseable {
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(5);

  private final Vertx vertx = Vertx.vertx();
  private final DnsClient client;

  /**
   * @param server {@code host:port} or {@code host} (port 53) of the server to ask; empty: the
   *     system's resolver
   */
  NameLookup(String server) {
    if (server.isEmpty()) {
      client = vertx.createDnsClient();
      return;
    }
    int colon = server.lastIndexOf(':');
    String host = colon < 0 ? server : server.substring(0, colon);
    int port = 53;
    if (colon >= 0) {
      try {
        port = Integer.parseInt(server.substring(colon + 1));
      } catch (NumberFormatException e) {
        vertx.close();
        throw CliException.usage(
            "flag --dns-server: invalid value '" + server + "': host or host:port");
      }
    }
    client =
        vertx.createDnsClient(
            new DnsClientOptions()
                .setHost(host)
                .setPort(port)
                .setQueryTimeout(QUERY_TIMEOUT.toMillis()));
  }

  /** Name to its answers, in the order given. */
  Map<String, List<String>> answers(Collection<String> names) {
    Map<String, Future<List<String>>> asked = new LinkedHashMap<>();
    for (String name : names) {
      asked.put(name, answer(name));
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    asked.forEach(
        (name, f) -> {
          try {
            out.put(name, f.await(QUERY_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS));
          } catch (Exception e) {
            out.put(name, List.of("no answer: " + e.getMessage()));
          }
        });
    return out;
  }

  private Future<List<String>> answer(String name) {
    Future<List<String>> cname = client.resolveCNAME(name);
    Future<List<String>> v4 = client.resolveA(name);
    Future<List<String>> v6 = client.resolveAAAA(name);
    return Future.join(cname, v4, v6)
        .transform(
            ar -> {
              List<String> answers = new ArrayList<>();
              if (cname.succeeded()) {
                cname.result().forEach(c -> answers.add("CNAME " + DnsNames.canonical(c)));
              }
              if (v4.succeeded()) {
                answers.addAll(v4.result());
              }
              if (v6.succeeded()) {
                answers.addAll(v6.result());
              }
              if (answers.isEmpty()) {
                answers.add(nxdomain(v4) || nxdomain(cname) ? "NXDOMAIN" : why(v4));
              }
              return Future.succeededFuture(answers);
            });
  }

  private static boolean nxdomain(Future<?> f) {
    return f.failed()
        && f.cause() instanceof DnsException e
        && e.code() == DnsResponseCode.NXDOMAIN;
  }

  private static String why(Future<?> f) {
    return f.failed() ? "no answer: " + f.cause().getMessage() : "no records";
  }

  @Override
  public void close() {
    try {
      vertx.close().await(QUERY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // Closing at the end of a command: nothing left to answer for.
    }
  }
}
