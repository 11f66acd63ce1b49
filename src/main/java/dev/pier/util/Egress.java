package dev.pier.util;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Function;

/**
 * Vets each request of a provider configured by someone other than the operator (a member
 * Secret's): its host resolved right before it goes, refused when any address it resolves to is
 * refused by the {@link EgressPolicy}, and otherwise sent to the vetted address itself, so a name
 * that resolves differently later is checked again and never reaches an address that was not
 * vetted. The request keeps its host for the Host header, SNI and certificate verification.
 */
public final class Egress {
  /** Vets nothing: the operator's own providers. */
  public static final Egress OPEN = new Egress(null, null, "");

  private final EgressPolicy policy;
  private final Function<String, Future<List<InetAddress>>> resolver;
  private final String setting;

  /**
   * @param resolver a host name's addresses, never blocking the caller's event loop
   * @param setting what the URL came from, for errors: "webhook.url"
   */
  public Egress(
      EgressPolicy policy, Function<String, Future<List<InetAddress>>> resolver, String setting) {
    this.policy = policy;
    this.resolver = resolver;
    this.setting = setting;
  }

  /** Resolves names with the JDK's resolver on a worker thread. */
  public static Egress of(Vertx vertx, EgressPolicy policy, String setting) {
    return new Egress(
        policy,
        host -> vertx.executeBlocking(() -> List.of(InetAddress.getAllByName(host)), false),
        setting);
  }

  /**
   * A request to a refused address: the call fails, never retried. Its message is the setting, then
   * {@link #reason}.
   */
  public static final class Refused extends RuntimeException {
    private final String reason;
    private final boolean unresolved;

    Refused(String setting, String reason, boolean unresolved) {
      super(setting + ": " + reason, null, false, false);
      this.reason = reason;
      this.unresolved = unresolved;
    }

    /** Why, without the setting's name. */
    public String reason() {
      return reason;
    }

    /** The host name could not be resolved: unknown, not known to be refused. */
    public boolean unresolved() {
      return unresolved;
    }
  }

  /**
   * {@code request} (an absolute URI set) bound to a vetted address of its host, or a failed {@link
   * Refused}.
   */
  public Future<RequestOptions> vet(RequestOptions request) {
    if (policy == null) {
      return Future.succeededFuture(request);
    }
    String host = request.getHost();
    if (host == null || host.isEmpty()) {
      return Future.failedFuture(new Refused(setting, "the URL has no host", false));
    }
    String bare = Ip.unbracketed(host);
    Integer given = request.getPort();
    int port = given != null && given > 0 ? given : Boolean.TRUE.equals(request.isSsl()) ? 443 : 80;
    Future<List<InetAddress>> addresses =
        Ip.parse(bare) != null ? literal(bare) : resolver.apply(bare);
    return addresses
        .recover(
            e ->
                Future.failedFuture(
                    new Refused(setting, "cannot resolve " + bare + ": " + e.getMessage(), true)))
        .compose(
            list -> {
              if (list.isEmpty()) {
                return Future.failedFuture(new Refused(setting, bare + " has no address", false));
              }
              for (InetAddress a : list) {
                String why = policy.refusal(a);
                if (why != null) {
                  String where = Ip.parse(bare) != null ? "" : "host " + bare + ": ";
                  return Future.failedFuture(
                      new Refused(
                          setting,
                          where
                              + why
                              + ", refused for a member's provider (federation.memberEgress.allow"
                              + " may allow it)",
                          false));
                }
              }
              return Future.succeededFuture(
                  request.setServer(
                      SocketAddress.inetSocketAddress(new InetSocketAddress(list.get(0), port))));
            });
  }

  private static Future<List<InetAddress>> literal(String address) {
    try {
      // A literal: parsed, never looked up.
      return Future.succeededFuture(List.of(InetAddress.getByName(address)));
    } catch (java.net.UnknownHostException e) {
      return Future.failedFuture(e);
    }
  }
}
