package dev.pier.dns.powerdns;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordSet;
import dev.pier.dns.powerdns.PowerDnsJson.Change;
import dev.pier.dns.powerdns.PowerDnsJson.Comment;
import dev.pier.dns.powerdns.PowerDnsJson.ResourceRecord;
import dev.pier.dns.powerdns.PowerDnsJson.Zone;
import dev.pier.util.AnswerLimit;
import dev.pier.util.HttpAnswer;
import dev.pier.util.RequestFence;
import io.netty.handler.codec.http.QueryStringEncoder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PowerDNS Authoritative HTTP API (4.x) through Vert.x's HTTP client. Ownership is a comment on
 * each rrset whose content is {@code pier-owner=<mark>}, the mark being {@code
 * <ownerId>;cluster=<uid>} ({@link RecordSet#ownerMark}; the owner id alone on records written
 * before marks carried the cluster); a change set is one PATCH, which PowerDNS applies in one
 * backend transaction. Listings (the zones, a zone's records, a name's records, which PowerDNS 4.7
 * answers with every name's comments) are read up to the inventory {@link AnswerLimit}, every other
 * answer up to the answer limit.
 */
public final class PowerDnsProvider implements DnsProvider {
  private static final Logger log = LoggerFactory.getLogger(PowerDnsProvider.class);
  static final String OWNER_PREFIX = "pier-owner=";
  static final String ACCOUNT = "pier";

  private final HttpClient client;
  private final PowerDnsOptions options;
  private final String base;
  private final RequestFence fence;
  private volatile Boolean luaRecords;

  public PowerDnsProvider(Vertx vertx, PowerDnsOptions options) {
    this(vertx, options, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each request goes: a deposed leader sends nothing more
   */
  public PowerDnsProvider(Vertx vertx, PowerDnsOptions options, RequestFence fence) {
    this.options = options;
    this.fence = fence;
    this.client = HttpAnswer.client(vertx, options.getTimeout(), options.getMaxConnections());
    this.base = options.getUrl() + "/api/v1/servers/" + encode(options.getServerId());
    log.info(
        "PowerDNS API at {} (server {}), API key from {}",
        options.getUrl(),
        options.getServerId(),
        options.getApiKey().source());
  }

  @Override
  public String name() {
    return "powerdns";
  }

  @Override
  public Future<List<DnsZone>> zones() {
    return send(request(HttpMethod.GET, "/zones", Map.of()), null, inventory(), "list zones")
        .map(
            r ->
                Arrays.stream(PowerDnsJson.decode(r.body(), Zone[].class))
                    .map(Zone::dnsZone)
                    .toList());
  }

  @Override
  public Future<Optional<DnsZone>> zone(String id) {
    RequestOptions req = request(HttpMethod.GET, "/zones/" + encode(id), Map.of("rrsets", "false"));
    return unchecked(req, null, options.getAnswerLimit(), "get zone " + id)
        .compose(
            r -> {
              if (r.statusCode() == 404 || r.statusCode() == 422) {
                return Future.succeededFuture(Optional.empty());
              }
              return check(r, "get zone " + id)
                  .map(ok -> Optional.of(PowerDnsJson.decode(r.body(), Zone.class).dnsZone()));
            });
  }

  @Override
  public Future<DnsZone> createZone(String name) {
    return send(
            request(HttpMethod.POST, "/zones", Map.of("rrsets", "false")),
            new PowerDnsJson.NewZone(DnsNames.canonical(name), "Native", List.of()),
            options.getAnswerLimit(),
            "create zone " + name)
        .map(r -> PowerDnsJson.decode(r.body(), Zone.class).dnsZone());
  }

  @Override
  public Future<List<RecordSet>> recordSets(DnsZone zone, String name) {
    return send(
            request(
                HttpMethod.GET,
                "/zones/" + encode(zone.id()),
                Map.of("rrset_name", DnsNames.canonical(name))),
            null,
            inventory(),
            "read " + name)
        .map(r -> parse(PowerDnsJson.decode(r.body(), Zone.class), DnsNames.canonical(name)));
  }

  @Override
  public Future<List<RecordSet>> recordSets(DnsZone zone) {
    return send(
            request(HttpMethod.GET, "/zones/" + encode(zone.id()), Map.of()),
            null,
            inventory(),
            "read " + zone.name())
        .map(r -> parse(PowerDnsJson.decode(r.body(), Zone.class), null));
  }

  @Override
  public Future<Void> apply(DnsZone zone, ChangeSet changes) {
    if (changes.isEmpty()) {
      return Future.succeededFuture();
    }
    return send(
            request(HttpMethod.PATCH, "/zones/" + encode(zone.id()), Map.of()),
            patchBody(changes),
            options.getAnswerLimit(),
            "update " + zone.name())
        .mapEmpty();
  }

  /**
   * True when the server's {@code enable-lua-records} is on (its configuration, read once through
   * the API): LUA records answer per query only then.
   */
  @Override
  public Future<Boolean> answersPerQuery() {
    Boolean known = luaRecords;
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return send(request(HttpMethod.GET, "/config", Map.of()), null, inventory(), "read config")
        .map(
            r -> {
              boolean on = luaRecordsEnabled(r.body().toJsonArray());
              luaRecords = on;
              return on;
            });
  }

  /** Whether a {@code GET /config} answer has {@code enable-lua-records} on. */
  static boolean luaRecordsEnabled(io.vertx.core.json.JsonArray config) {
    for (Object o : config) {
      if (o instanceof JsonObject s && "enable-lua-records".equals(s.getString("name"))) {
        String v = String.valueOf(s.getValue("value")).trim();
        return v.equals("yes") || v.equals("true") || v.equals("shared");
      }
    }
    return false;
  }

  /** The PATCH body: every delete first, then every replace with Pier's owner comment. */
  static PowerDnsJson.Patch patchBody(ChangeSet changes) {
    List<Change> rrsets = new ArrayList<>();
    for (RecordSet d : changes.deletes()) {
      rrsets.add(new Change(d.name(), d.type(), null, "DELETE", null, null));
    }
    for (RecordSet r : changes.replaces()) {
      rrsets.add(
          new Change(
              r.name(),
              r.type(),
              r.ttl(),
              "REPLACE",
              r.records().stream().map(c -> new ResourceRecord(c, false)).toList(),
              r.owner() == null
                  ? List.of()
                  : List.of(new Comment(OWNER_PREFIX + r.owner(), ACCOUNT))));
    }
    return new PowerDnsJson.Patch(rrsets);
  }

  /**
   * The rrsets of a zone response, with the owner read from Pier's comment.
   *
   * @param name only this canonical name, or null for all
   */
  static List<RecordSet> parse(Zone zone, String name) {
    List<RecordSet> out = new ArrayList<>();
    for (PowerDnsJson.RRSet r : zone.rrsets()) {
      // PowerDNS 4.7 lists the comments of every name of the zone even with ?rrset_name=, as
      // entries without records: those are no rrsets.
      if (r.records().isEmpty() || (name != null && !DnsNames.canonical(r.name()).equals(name))) {
        continue;
      }
      List<String> records =
          r.records().stream().filter(rr -> !rr.disabled()).map(ResourceRecord::content).toList();
      String owner = null;
      for (Comment c : r.comments()) {
        if (c.content() != null && c.content().startsWith(OWNER_PREFIX)) {
          owner = c.content().substring(OWNER_PREFIX.length()).trim();
        }
      }
      out.add(new RecordSet(r.name(), r.type(), r.ttl(), records, owner));
    }
    return out;
  }

  private AnswerLimit inventory() {
    return options.getInventoryLimit();
  }

  private RequestOptions request(HttpMethod method, String path, Map<String, String> query) {
    QueryStringEncoder uri = new QueryStringEncoder(base + path);
    query.forEach(uri::addParam);
    return new RequestOptions()
        .setMethod(method)
        .setAbsoluteURI(uri.toString())
        .putHeader("X-API-Key", options.getApiKey().value())
        .putHeader("Accept", "application/json")
        .setTimeout(options.getTimeout().toMillis());
  }

  /** One request whose answer must be 2xx. */
  private Future<HttpAnswer> send(RequestOptions req, Object body, AnswerLimit limit, String what) {
    return unchecked(req, body, limit, what).compose(r -> check(r, what).map(r));
  }

  /** One request, its answer read up to {@code limit}, whatever its status. */
  private Future<HttpAnswer> unchecked(
      RequestOptions req, Object body, AnswerLimit limit, String what) {
    RuntimeException refused = fence.refusal(fence.term(), "PowerDNS " + what);
    if (refused != null) {
      return Future.failedFuture(refused);
    }
    if (body != null) {
      req.putHeader("Content-Type", "application/json");
    }
    return HttpAnswer.send(
            client, req, body == null ? null : PowerDnsJson.encode(body), limit, "PowerDNS " + what)
        .recover(e -> Future.failedFuture(unreachable(what, e)));
  }

  private DnsException unreachable(String what, Throwable e) {
    if (e instanceof AnswerLimit.Passed) {
      return DnsException.retry(e.getMessage(), e);
    }
    return DnsException.retry(
        "PowerDNS at " + options.getUrl() + ": cannot " + what + ": " + e.getMessage(), e);
  }

  private static Future<Void> check(HttpAnswer r, String what) {
    int code = r.statusCode();
    if (code >= 200 && code < 300) {
      return Future.succeededFuture();
    }
    String error = errorText(r);
    String msg =
        "PowerDNS: cannot " + what + ": HTTP " + code + (error.isEmpty() ? "" : ": " + error);
    if (code == 401 || code == 403) {
      return Future.failedFuture(DnsException.retry(msg + " (check the API key)"));
    }
    // A 422 is PowerDNS refusing what the change set holds: a name it does not take, or a race
    // with another writer (a record appeared in the way). Retryable, and for one name only.
    if (code == 422) {
      return Future.failedFuture(DnsException.rejected(msg));
    }
    if (code == 400) {
      return Future.failedFuture(DnsException.invalid(msg));
    }
    return Future.failedFuture(DnsException.retry(msg));
  }

  private static String errorText(HttpAnswer r) {
    // One string field: the JsonObject lookup is shorter than a record for it.
    try {
      JsonObject o = r.body().length() == 0 ? null : new JsonObject(r.body());
      return o == null ? "" : o.getString("error", "");
    } catch (RuntimeException notJson) {
      String s = r.bodyAsString();
      return s == null ? "" : s.length() > 200 ? s.substring(0, 200) : s;
    }
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public Future<Void> close() {
    client.close();
    return Future.succeededFuture();
  }
}
