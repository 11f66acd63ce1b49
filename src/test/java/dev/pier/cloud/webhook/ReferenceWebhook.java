package dev.pier.cloud.webhook;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A small in-memory implementation of docs/webhook-provider.md: it "creates" a load balancer per
 * Service (clusterUid + uid) with an address from 192.0.2.0/24 (then from 198.18.0.0/15, for
 * thousands of Services) and remembers its ports and nodes. It implements the optional {@code list}
 * (what it holds for a clusterUid), rejects non-TCP/UDP protocols as invalid input, and can inject
 * busy (503 Retry-After) and 500 answers for tests. It implements the optional {@code verify}: like
 * {@code ensure}, plus the repairs it made (a missing load balancer recreated, ports or backends
 * set back); {@link #supportVerify} turns it off (404, as a webhook without it answers). It can
 * answer every call after a delay, as a slow cloud would (the benchmark's stand-in, {@code
 * dev.pier.bench.WebhookStandIn}, runs it in a process of its own).
 */
public final class ReferenceWebhook implements AutoCloseable {
  // 192.0.2.1-254, then 198.18.0.1-198.19.255.254.
  private static final int MAX_SLOT = 254 + (1 << 17) - 2;

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final String token;
  private final String scheme;
  private final Duration delay;
  private final Map<String, JsonObject> lbs = new TreeMap<>();
  // Address slots in use, and each load balancer's slot (see address()).
  private final BitSet used = new BitSet();
  private final Map<String, Integer> slots = new HashMap<>();
  private int busy;
  private int busyRetryAfter;
  private int failures;
  private boolean refuseDeletes;
  private int calls;
  private boolean verify = true;
  private final List<String> operations = new java.util.ArrayList<>();

  private ReferenceWebhook(String token, HttpServerOptions options, Duration delay) {
    this.token = token;
    this.delay = delay;
    this.server = vertx.createHttpServer(options).requestHandler(this::handle);
    this.scheme = options.isSsl() ? "https" : "http";
  }

  /** Starts on a free loopback port; {@code token} empty: no authentication. */
  public static ReferenceWebhook start(String token) {
    return start(token, new HttpServerOptions());
  }

  /** Starts with the given server options (TLS, client authentication). */
  public static ReferenceWebhook start(String token, HttpServerOptions options) {
    return start(token, options, 0, Duration.ZERO);
  }

  /**
   * Starts on 127.0.0.1:{@code port} (0: a free port) and answers every call {@code delay} after
   * its request arrived.
   */
  public static ReferenceWebhook start(
      String token, HttpServerOptions options, int port, Duration delay) {
    ReferenceWebhook w = new ReferenceWebhook(token, options, delay);
    try {
      w.server
          .listen(port, "127.0.0.1")
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("reference webhook did not start", e);
    }
    return w;
  }

  public String url() {
    return scheme + "://localhost:" + server.actualPort() + "/pier/v1";
  }

  /** The next {@code n} calls are answered 503 with {@code Retry-After: seconds}. */
  public synchronized void busyNext(int n, int seconds) {
    busy = n;
    busyRetryAfter = seconds;
  }

  /** Deletes a load balancer behind Pier's back, as an operator with cloud access might. */
  public synchronized void deleteOutOfBand(String key) {
    free(key);
  }

  private void free(String key) {
    lbs.remove(key);
    Integer slot = slots.remove(key);
    if (slot != null) {
      used.clear(slot);
    }
  }

  /**
   * The address of slot {@code n}: 192.0.2.1 to .254 first, then 198.18.0.1 on (198.18.0.0/15, for
   * benchmarks with thousands of Services).
   */
  private static String address(int n) {
    if (n <= 254) {
      return "192.0.2." + n;
    }
    int i = n - 254;
    return "198." + (18 + (i >> 16)) + "." + ((i >> 8) & 255) + "." + (i & 255);
  }

  /** While true, every delete is refused with 422 invalid_input, as a stuck backend would. */
  public synchronized void refuseDeletes(boolean refuse) {
    refuseDeletes = refuse;
  }

  /** The next {@code n} calls are answered 500. */
  public synchronized void failNext(int n) {
    failures = n;
  }

  public synchronized int calls() {
    return calls;
  }

  /** While false, {@code verify} is answered 404, as by a webhook that does not implement it. */
  public synchronized void supportVerify(boolean supported) {
    verify = supported;
  }

  /** The operations called so far, in order ("ensure", "verify", ...). */
  public synchronized List<String> operations() {
    return List.copyOf(operations);
  }

  /** The load balancers: key clusterUid/uid, value {name, namespace, service, ip, ports, nodes}. */
  public synchronized Map<String, JsonObject> loadBalancers() {
    Map<String, JsonObject> copy = new TreeMap<>();
    lbs.forEach((k, v) -> copy.put(k, v.copy()));
    return copy;
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void handle(HttpServerRequest req) {
    req.body()
        .onSuccess(
            buf -> {
              if (delay.isZero()) {
                answerNow(req, buf.toString());
              } else {
                vertx.setTimer(delay.toMillis(), t -> answerNow(req, buf.toString()));
              }
            });
  }

  private synchronized void answerNow(HttpServerRequest req, String text) {
    calls++;
    answer(req, text);
  }

  private void answer(HttpServerRequest req, String text) {
    if (!token.isEmpty() && !("Bearer " + token).equals(req.getHeader("Authorization"))) {
      error(req, 401, "unauthorized", "missing or wrong bearer token");
      return;
    }
    String prefix = "/pier/v1/";
    if (!req.path().startsWith(prefix) || req.method().name().equals("GET")) {
      error(req, 404, "not_found", "no operation at " + req.path());
      return;
    }
    String op = req.path().substring(prefix.length());
    operations.add(op);
    if (!(verify
            ? List.of("get", "ensure", "verify", "update-hosts", "delete", "list")
            : List.of("get", "ensure", "update-hosts", "delete", "list"))
        .contains(op)) {
      error(req, 404, "not_found", "unknown operation " + op);
      return;
    }
    if (busy > 0) {
      busy--;
      req.response().putHeader("Retry-After", Integer.toString(busyRetryAfter));
      error(req, 503, "busy", "busy, try again later");
      return;
    }
    if (failures > 0) {
      failures--;
      error(req, 500, "internal", "injected failure");
      return;
    }
    if (op.equals("list")) {
      list(req, text);
      return;
    }
    JsonObject body;
    JsonObject svc;
    String key;
    try {
      body = new JsonObject(text);
      svc = body.getJsonObject("service");
      key = body.getString("clusterUid") + "/" + svc.getString("uid");
      if (body.getString("cluster") == null
          || body.getString("clusterUid") == null
          || svc.getString("uid") == null) {
        throw new IllegalArgumentException("cluster, clusterUid and service.uid are required");
      }
    } catch (RuntimeException e) {
      error(req, 400, "bad_request", "cannot parse the request: " + e.getMessage());
      return;
    }
    JsonObject lb = lbs.get(key);
    switch (op) {
      case "get" -> {
        JsonObject a = new JsonObject().put("exists", lb != null);
        if (lb != null) {
          a.put("status", status(lb));
        }
        json(req, 200, a);
      }
      case "ensure", "verify" -> {
        JsonArray ports = svc.getJsonArray("ports", new JsonArray());
        for (int i = 0; i < ports.size(); i++) {
          String protocol = ports.getJsonObject(i).getString("protocol");
          if (!"TCP".equals(protocol) && !"UDP".equals(protocol)) {
            req.response().setStatusCode(422);
            json(
                req,
                422,
                new JsonObject()
                    .put(
                        "error",
                        new JsonObject()
                            .put("kind", "invalid_input")
                            .put("field", "spec.ports[" + i + "].protocol")
                            .put("value", protocol)
                            .put(
                                "message",
                                "spec.ports["
                                    + i
                                    + "].protocol="
                                    + protocol
                                    + ": only TCP and UDP")));
            return;
          }
        }
        JsonArray nodes = names(body.getJsonArray("nodes", new JsonArray()));
        JsonArray repairs = new JsonArray();
        if (lb != null && !ports.equals(lb.getJsonArray("ports"))) {
          repairs.add("ports were " + lb.getJsonArray("ports").encode() + "; set them back");
        }
        if (lb != null && !nodes.equals(lb.getJsonArray("nodes"))) {
          repairs.add("backends were " + lb.getJsonArray("nodes").encode() + "; set them back");
        }
        if (lb == null) {
          int n = used.nextClearBit(1);
          if (n > MAX_SLOT) {
            error(req, 503, "exhausted", "no free address");
            return;
          }
          used.set(n);
          slots.put(key, n);
          lb = new JsonObject().put("ip", address(n));
          lbs.put(key, lb);
          repairs.add(
              "load balancer "
                  + body.getString("loadBalancerName")
                  + " was missing; recreated it at "
                  + address(n));
        }
        lb.put("name", body.getString("loadBalancerName"))
            .put("cluster", body.getString("cluster"))
            .put("uid", svc.getString("uid"))
            .put("namespace", svc.getString("namespace"))
            .put("service", svc.getString("name"))
            .put("ports", ports.copy())
            .put("nodes", nodes);
        JsonObject answer =
            new JsonObject().put("status", status(lb)).put("warnings", new JsonArray());
        if (op.equals("verify")) {
          answer.put("repairs", repairs);
        }
        json(req, 200, answer);
      }
      case "update-hosts" -> {
        if (lb == null) {
          error(req, 404, "not_found", "no load balancer for " + key);
          return;
        }
        lb.put("nodes", names(body.getJsonArray("nodes", new JsonArray())));
        req.response().setStatusCode(204).end();
      }
      default -> {
        if (refuseDeletes) {
          json(
              req,
              422,
              new JsonObject()
                  .put(
                      "error",
                      new JsonObject()
                          .put("kind", "invalid_input")
                          .put("field", "metadata.uid")
                          .put("value", svc.getString("uid"))
                          .put("message", "the load balancer is locked and cannot be deleted")));
          return;
        }
        free(key);
        req.response().setStatusCode(204).end();
      }
    }
  }

  /** {@code list}: every load balancer made for the request's clusterUid. */
  private void list(HttpServerRequest req, String text) {
    String clusterUid;
    try {
      JsonObject body = new JsonObject(text);
      clusterUid = body.getString("clusterUid");
      if (body.getString("cluster") == null || clusterUid == null) {
        throw new IllegalArgumentException("cluster and clusterUid are required");
      }
    } catch (RuntimeException e) {
      error(req, 400, "bad_request", "cannot parse the request: " + e.getMessage());
      return;
    }
    JsonArray out = new JsonArray();
    lbs.forEach(
        (key, lb) -> {
          if (key.startsWith(clusterUid + "/")) {
            out.add(
                new JsonObject()
                    .put("id", key)
                    .put("name", lb.getString("name"))
                    .put("serviceUid", lb.getString("uid"))
                    .put(
                        "serviceKey",
                        lb.getString("cluster")
                            + "/"
                            + lb.getString("namespace")
                            + "/"
                            + lb.getString("service")));
          }
        });
    json(req, 200, new JsonObject().put("loadBalancers", out));
  }

  private static JsonArray names(JsonArray nodes) {
    JsonArray out = new JsonArray();
    for (int i = 0; i < nodes.size(); i++) {
      out.add(nodes.getJsonObject(i).getString("name"));
    }
    return out;
  }

  private static JsonObject status(JsonObject lb) {
    return new JsonObject()
        .put(
            "ingress",
            new JsonArray()
                .add(new JsonObject().put("ip", lb.getString("ip")).put("ipMode", "VIP")));
  }

  private static void json(HttpServerRequest req, int status, JsonObject body) {
    req.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .end(body.encode());
  }

  private static void error(HttpServerRequest req, int status, String kind, String message) {
    json(
        req,
        status,
        new JsonObject().put("error", new JsonObject().put("kind", kind).put("message", message)));
  }
}
