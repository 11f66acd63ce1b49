package dev.pier.testkit;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in external-dns webhook provider (external-dns's {@code api/webhook.yaml}) holding its
 * records in memory. It follows the published contract strictly and, where the contract says
 * nothing, does what external-dns's own webhook server ({@code provider/webhook/api}) and the
 * reference providers do:
 *
 * <ul>
 *   <li>media type {@value #MEDIA_TYPE}: a GET whose Accept does not allow it is answered 406, a
 *       POST whose Content-Type is not it 415; every answer with a body carries it;
 *   <li>{@code GET /}: the domain filter, {@code {"include":[...],"exclude":[...]}} or, with {@link
 *       #legacyFilter}, the older {@code {"filters":[...],"exclude":[...]}};
 *   <li>{@code GET /records}: every endpoint; {@code POST /adjustendpoints}: the endpoints back,
 *       with TTLs under {@link #minTtl} raised to it and those of {@link #unsupported} types left
 *       out;
 *   <li>{@code POST /records}: a {@code Changes} object ({@code Create}, {@code UpdateOld}, {@code
 *       UpdateNew}, {@code Delete}; keys matched without regard to case, as Go's JSON decoder
 *       does), applied all or nothing, 204. A body that is no such object, an endpoint without
 *       {@code dnsName}/{@code recordType}, or unpaired updates: 400 (as the reference server
 *       answers what it cannot decode). Changes it cannot apply (a name outside the filter, a
 *       Create of an existing rrset, an UpdateOld or Delete not matching the current endpoint
 *       exactly, a CNAME beside other records): 500 with the reason, as the contract's "Changes
 *       were not accepted";
 *   <li>{@code GET /healthz}: 200. Other methods: 405; other paths: 404.
 * </ul>
 */
public final class ExternalDnsWebhookServer implements AutoCloseable {
  public static final String MEDIA_TYPE = "application/external.dns.webhook+json;version=1";

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final List<String> include;
  private final List<String> exclude;
  private final List<JsonObject> records = new ArrayList<>();
  private boolean legacyFilter;
  private long minTtl;
  private Set<String> unsupported = Set.of();
  private long delayMs;
  private int changeRequests;
  private int listRequests;

  private ExternalDnsWebhookServer(List<String> include, List<String> exclude) {
    this.include = include.stream().map(ExternalDnsWebhookServer::bare).toList();
    this.exclude = exclude.stream().map(ExternalDnsWebhookServer::bare).toList();
    this.server = vertx.createHttpServer().requestHandler(this::handle);
  }

  /** Starts on a free loopback port, serving the {@code include} domains minus {@code exclude}. */
  public static ExternalDnsWebhookServer start(List<String> include, List<String> exclude) {
    ExternalDnsWebhookServer s = new ExternalDnsWebhookServer(include, exclude);
    try {
      s.server
          .listen(0, "127.0.0.1")
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("external-dns webhook stand-in did not start", e);
    }
    return s;
  }

  public String url() {
    return "http://localhost:" + server.actualPort();
  }

  /** Answers {@code GET /} in the form of external-dns before 0.15: {@code filters}. */
  public synchronized ExternalDnsWebhookServer legacyFilter(boolean legacy) {
    this.legacyFilter = legacy;
    return this;
  }

  /** {@code POST /adjustendpoints} raises TTLs below this one; 0: returns them unchanged. */
  public synchronized ExternalDnsWebhookServer minTtl(long ttl) {
    this.minTtl = ttl;
    return this;
  }

  /**
   * Record types {@code POST /adjustendpoints} drops, as a provider that does not support them
   * does.
   */
  public synchronized ExternalDnsWebhookServer unsupported(String... types) {
    this.unsupported = Set.of(types);
    return this;
  }

  /** Every answer waits this long first (to run clients into their timeout). */
  public synchronized ExternalDnsWebhookServer delay(Duration delay) {
    this.delayMs = delay.toMillis();
    return this;
  }

  /** Adds an endpoint behind the client's back, as another writer would. */
  public synchronized void put(String name, String type, long ttl, String... targets) {
    records.add(endpoint(name, type, ttl, List.of(targets)));
  }

  /** A copy of every endpoint held. */
  public synchronized List<JsonObject> records() {
    return records.stream().map(JsonObject::copy).toList();
  }

  /** The targets of {@code name type}, or null when there is no such endpoint. */
  public synchronized List<String> targets(String name, String type) {
    return records.stream()
        .filter(r -> same(r.getString("dnsName"), name) && type.equals(r.getString("recordType")))
        .findFirst()
        .map(r -> r.getJsonArray("targets").stream().map(String::valueOf).toList())
        .orElse(null);
  }

  /** The TTL of {@code name type}, or -1. */
  public synchronized long ttl(String name, String type) {
    return records.stream()
        .filter(r -> same(r.getString("dnsName"), name) && type.equals(r.getString("recordType")))
        .findFirst()
        .map(r -> r.getLong("recordTTL", 0L))
        .orElse(-1L);
  }

  /** How many {@code POST /records} it took (accepted or not). */
  public synchronized int changeRequests() {
    return changeRequests;
  }

  /** How many {@code GET /records} it answered. */
  public synchronized int listRequests() {
    return listRequests;
  }

  public synchronized void clear() {
    records.clear();
  }

  private void handle(HttpServerRequest req) {
    long delay;
    synchronized (this) {
      delay = delayMs;
    }
    req.body()
        .onSuccess(
            body -> {
              if (delay > 0) {
                vertx.setTimer(delay, t -> answer(req, body));
              } else {
                answer(req, body);
              }
            });
  }

  private synchronized void answer(HttpServerRequest req, Buffer body) {
    String path = req.path();
    String method = req.method().name();
    if (path.equals("/healthz")) {
      req.response().setStatusCode(200).end("ok");
      return;
    }
    boolean get = method.equals("GET");
    boolean post = method.equals("POST");
    switch (path) {
      case "/" -> {
        if (!get) {
          end(req, 405, "GET only");
        } else if (accepts(req)) {
          JsonObject filter =
              new JsonObject()
                  .put(
                      legacyFilter ? "filters" : "include", new JsonArray(new ArrayList<>(include)))
                  .put("exclude", new JsonArray(new ArrayList<>(exclude)));
          json(req, 200, filter.toBuffer());
        }
      }
      case "/records" -> {
        if (get) {
          listRequests++;
          if (accepts(req)) {
            json(req, 200, new JsonArray(new ArrayList<>(records)).toBuffer());
          }
        } else if (post) {
          changeRequests++;
          if (contentType(req)) {
            applyChanges(req, body);
          }
        } else {
          end(req, 405, "GET or POST");
        }
      }
      case "/adjustendpoints" -> {
        if (!post) {
          end(req, 405, "POST only");
        } else if (contentType(req) && accepts(req)) {
          List<JsonObject> eps = endpoints(body);
          if (eps == null) {
            end(req, 400, "the body is no list of endpoints");
            return;
          }
          JsonArray out = new JsonArray();
          for (JsonObject e : eps) {
            if (unsupported.contains(e.getString("recordType"))) {
              continue;
            }
            JsonObject a = e.copy();
            if (minTtl > 0 && a.getLong("recordTTL", 0L) < minTtl) {
              a.put("recordTTL", minTtl);
            }
            out.add(a);
          }
          json(req, 200, out.toBuffer());
        }
      }
      default -> end(req, 404, "no such path");
    }
  }

  private void applyChanges(HttpServerRequest req, Buffer body) {
    JsonObject changes;
    try {
      changes = new JsonObject(body);
    } catch (RuntimeException e) {
      end(req, 400, "the body is no Changes object");
      return;
    }
    List<JsonObject> create = list(changes, "create");
    List<JsonObject> updateOld = list(changes, "updateOld");
    List<JsonObject> updateNew = list(changes, "updateNew");
    List<JsonObject> delete = list(changes, "delete");
    if (create == null || updateOld == null || updateNew == null || delete == null) {
      end(req, 400, "Create, UpdateOld, UpdateNew and Delete must be lists of endpoints");
      return;
    }
    if (updateOld.size() != updateNew.size()) {
      end(req, 400, "UpdateOld and UpdateNew must pair up");
      return;
    }
    List<JsonObject> next = new ArrayList<>(records);
    List<JsonObject> written = new ArrayList<>(create);
    written.addAll(updateNew);
    List<JsonObject> touched = new ArrayList<>(written);
    touched.addAll(updateOld);
    touched.addAll(delete);
    for (JsonObject e : touched) {
      if (!inFilter(e.getString("dnsName"))) {
        end(req, 500, e.getString("dnsName") + " is outside the domain filter");
        return;
      }
    }
    List<JsonObject> gone = new ArrayList<>(delete);
    gone.addAll(updateOld);
    for (JsonObject e : gone) {
      int at = indexOfExact(next, e);
      if (at < 0) {
        end(req, 500, describe(e) + " does not match any current record");
        return;
      }
      next.remove(at);
    }
    for (JsonObject e : written) {
      if (next.stream().anyMatch(r -> sameSet(r, e))) {
        end(req, 500, describe(e) + " already exists");
        return;
      }
      next.add(normalized(e));
    }
    for (JsonObject r : next) {
      if (r.getString("recordType").equals("CNAME")
          && next.stream()
              .anyMatch(o -> o != r && same(o.getString("dnsName"), r.getString("dnsName")))) {
        end(req, 500, r.getString("dnsName") + ": a CNAME cannot share its name");
        return;
      }
    }
    records.clear();
    records.addAll(next);
    req.response().setStatusCode(204).end();
  }

  private boolean accepts(HttpServerRequest req) {
    String accept = req.getHeader("Accept");
    if (accept != null) {
      for (String a : accept.split(",")) {
        if (mediaType(a)) {
          return true;
        }
      }
    }
    end(req, 406, "Accept must allow " + MEDIA_TYPE);
    return false;
  }

  private boolean contentType(HttpServerRequest req) {
    String type = req.getHeader("Content-Type");
    if (type != null && mediaType(type)) {
      return true;
    }
    end(req, 415, "Content-Type must be " + MEDIA_TYPE);
    return false;
  }

  private static boolean mediaType(String value) {
    return value.replace(" ", "").toLowerCase(Locale.ROOT).equals(MEDIA_TYPE);
  }

  private static void json(HttpServerRequest req, int code, Buffer body) {
    req.response().setStatusCode(code).putHeader("Content-Type", MEDIA_TYPE).end(body);
  }

  private static void end(HttpServerRequest req, int code, String message) {
    req.response().setStatusCode(code).putHeader("Content-Type", "text/plain").end(message);
  }

  /** A Changes list by its key in any case (absent: empty), or null when malformed. */
  private static List<JsonObject> list(JsonObject changes, String key) {
    for (String k : changes.fieldNames()) {
      if (k.equalsIgnoreCase(key)) {
        Object v = changes.getValue(k);
        if (v == null) {
          return List.of();
        }
        return v instanceof JsonArray a ? endpoints(a) : null;
      }
    }
    return List.of();
  }

  private static List<JsonObject> endpoints(Buffer body) {
    try {
      return endpoints(new JsonArray(body));
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static List<JsonObject> endpoints(JsonArray array) {
    List<JsonObject> out = new ArrayList<>();
    for (Object o : array) {
      if (!(o instanceof JsonObject e)
          || !(e.getValue("dnsName") instanceof String)
          || !(e.getValue("recordType") instanceof String)
          || (e.getValue("targets") != null && !(e.getValue("targets") instanceof JsonArray))) {
        return null;
      }
      out.add(e);
    }
    return out;
  }

  private boolean inFilter(String name) {
    String n = bare(name);
    return include.stream().anyMatch(d -> within(n, d))
        && exclude.stream().noneMatch(d -> within(n, d));
  }

  private static boolean within(String name, String domain) {
    return name.equals(domain) || name.endsWith("." + domain);
  }

  private static int indexOfExact(List<JsonObject> list, JsonObject e) {
    for (int i = 0; i < list.size(); i++) {
      JsonObject r = list.get(i);
      if (sameSet(r, e) && targetsOf(r).equals(targetsOf(e))) {
        return i;
      }
    }
    return -1;
  }

  private static boolean sameSet(JsonObject a, JsonObject b) {
    return same(a.getString("dnsName"), b.getString("dnsName"))
        && a.getString("recordType").equals(b.getString("recordType"))
        && Objects.equals(a.getString("setIdentifier", ""), b.getString("setIdentifier", ""));
  }

  private static List<String> targetsOf(JsonObject e) {
    JsonArray t = e.getJsonArray("targets", new JsonArray());
    return t.stream().map(String::valueOf).sorted().toList();
  }

  private static boolean same(String a, String b) {
    return bare(a).equals(bare(b));
  }

  private static String bare(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
  }

  private static JsonObject normalized(JsonObject e) {
    JsonObject n = e.copy();
    n.put("dnsName", bare(e.getString("dnsName")));
    if (!n.containsKey("targets")) {
      n.put("targets", new JsonArray());
    }
    return n;
  }

  private static JsonObject endpoint(String name, String type, long ttl, List<String> targets) {
    return new JsonObject()
        .put("dnsName", bare(name))
        .put("targets", new JsonArray(new ArrayList<>(targets)))
        .put("recordType", type)
        .put("recordTTL", ttl);
  }

  private static String describe(JsonObject e) {
    return e.getString("dnsName") + " " + e.getString("recordType") + " " + targetsOf(e);
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
