package dev.pier.cloud.hetzner;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the Hetzner Cloud API's load balancer endpoints, following the published contract
 * (the API reference and the schemas of hcloud-go and hcloud-python): bearer-token auth, JSON error
 * bodies {@code {"error": {"code", "message", "details"}}} with their status codes, paginated lists
 * with {@code meta.pagination}, {@code RateLimit-Limit/Remaining/Reset} headers on every answer and
 * 429 {@code rate_limit_exceeded} when the budget is spent, and Actions that run for a while
 * ({@code running}, then {@code success} or {@code error}) and lock their load balancer ({@code 423
 * locked}) meanwhile. A change takes effect when its Action succeeds.
 *
 * <p>Faults for tests: bursts of 429, 5xx answers, an Action ending in error, slow answers.
 */
public final class FakeHetznerCloud implements AutoCloseable {
  private static final Map<String, String> LOCATIONS =
      Map.of(
          "fsn1", "eu-central",
          "nbg1", "eu-central",
          "hel1", "eu-central",
          "ash", "us-east",
          "hil", "us-west",
          "sin", "ap-southeast");
  private static final Map<String, int[]> TYPES =
      Map.of("lb11", new int[] {5, 25}, "lb21", new int[] {15, 75}, "lb31", new int[] {30, 150});

  private final Vertx vertx = Vertx.vertx();
  private final String token;
  private final HttpServer server;
  private final Map<Long, Lb> lbs = new TreeMap<>();
  private final Map<Long, JsonObject> actions = new HashMap<>();
  private final Set<Long> servers = new java.util.HashSet<>();
  private final List<String> requests = new ArrayList<>();
  private long nextId = 1000;
  private long actionDurationMs = 150;
  private final int rateLimit = 3600;
  private int remaining = 3600;
  // Faults
  private int rateLimitBurst;
  private int failures;
  private int failureStatus;
  private String failureCode;
  private int failedActions;
  private int slowAnswers;
  private long slowMs;
  private long exhaustFor;
  private long exhaustedUntil;
  private String slowPrefix = "";
  private int slowMatching;
  private long slowMatchingMs;
  private final AtomicInteger answered429 = new AtomicInteger();
  private final AtomicInteger answered5xx = new AtomicInteger();

  private static final class Lb {
    long id;
    String name;
    String type;
    String location;
    String algorithm;
    Map<String, String> labels = new LinkedHashMap<>();
    TreeMap<Integer, JsonObject> services = new TreeMap<>();
    Map<Long, Boolean> targets = new TreeMap<>();
    boolean deleteProtection;
    String ipv4;
    String ipv6;
    String created;
    long runningAction;
  }

  private FakeHetznerCloud(String token) {
    this.token = token;
    this.server = vertx.createHttpServer().requestHandler(this::handle);
  }

  public static FakeHetznerCloud start(String token) {
    FakeHetznerCloud f = new FakeHetznerCloud(token);
    try {
      f.server
          .listen(0, "127.0.0.1")
          .toCompletionStage()
          .toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("fake Hetzner API did not start", e);
    }
    return f;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + server.actualPort() + "/v1";
  }

  // --- test controls ----------------------------------------------------------------------

  public synchronized void addServers(long... ids) {
    for (long id : ids) {
      servers.add(id);
    }
  }

  public synchronized void setActionDuration(Duration d) {
    actionDurationMs = d.toMillis();
  }

  /** The next {@code n} requests get 429 rate_limit_exceeded with RateLimit-Remaining: 0. */
  public synchronized void rateLimitBurst(int n) {
    rateLimitBurst = n;
  }

  /**
   * The next answer reports the budget spent ({@code RateLimit-Remaining: 0}) until {@code
   * RateLimit-Reset}, about {@code d} from now; requests before the reset get 429.
   */
  public synchronized void exhaustBudget(Duration d) {
    exhaustFor = d.toMillis();
  }

  /** The next {@code n} requests fail with the status and error code. */
  public synchronized void failNext(int n, int status, String code) {
    failures = n;
    failureStatus = status;
    failureCode = code;
  }

  /** The next {@code n} Actions end in status error. */
  public synchronized void failNextActions(int n) {
    failedActions = n;
  }

  /** The next {@code n} answers are delayed by {@code delay}. */
  public synchronized void slowNext(int n, Duration delay) {
    slowAnswers = n;
    slowMs = delay.toMillis();
  }

  /** The next {@code n} answers to requests starting with {@code "METHOD /path"} are delayed. */
  public synchronized void slowNextMatching(String prefix, int n, Duration delay) {
    slowPrefix = prefix;
    slowMatching = n;
    slowMatchingMs = delay.toMillis();
  }

  public int answered429() {
    return answered429.get();
  }

  public int answered5xx() {
    return answered5xx.get();
  }

  public synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  /** Every load balancer as the API shows it. */
  public synchronized List<JsonObject> loadBalancers() {
    return lbs.values().stream().map(this::json).toList();
  }

  /** The load balancer labelled with the Service uid, or null. */
  public synchronized JsonObject byServiceUid(String uid) {
    return lbs.values().stream()
        .filter(l -> uid.equals(l.labels.get("hcloud-ccm/service-uid")))
        .map(this::json)
        .findFirst()
        .orElse(null);
  }

  /** Creates a load balancer directly (as another tool or an earlier Pier run would have). */
  public synchronized JsonObject createDirect(
      String name, Map<String, String> labels, boolean protect) {
    Lb lb = newLb(name, "lb11", "fsn1", "round_robin", labels);
    lb.deleteProtection = protect;
    return json(lb);
  }

  public synchronized void setDeleteProtection(long id, boolean protect) {
    lbs.get(id).deleteProtection = protect;
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  // --- HTTP -------------------------------------------------------------------------------

  private void handle(HttpServerRequest req) {
    req.body()
        .onSuccess(
            buf -> {
              Answer a;
              long delay;
              synchronized (this) {
                requests.add(req.method() + " " + req.path());
                a = answer(req, buf.toString());
                delay = slowAnswers > 0 ? slowMs : 0;
                if (slowMatching > 0 && (req.method() + " " + req.path()).startsWith(slowPrefix)) {
                  slowMatching--;
                  delay = Math.max(delay, slowMatchingMs);
                }
                if (slowAnswers > 0) {
                  slowAnswers--;
                }
              }
              if (delay > 0) {
                vertx.setTimer(delay, t -> send(req, a));
              } else {
                send(req, a);
              }
            });
  }

  private record Answer(int status, JsonObject body, long reset, int remaining) {}

  private void send(HttpServerRequest req, Answer a) {
    var resp = req.response().setStatusCode(a.status);
    resp.putHeader("RateLimit-Limit", Integer.toString(rateLimit))
        .putHeader("RateLimit-Remaining", Integer.toString(a.remaining))
        .putHeader("RateLimit-Reset", Long.toString(a.reset));
    if (a.body == null) {
      resp.end();
    } else {
      resp.putHeader("Content-Type", "application/json").end(a.body.encode());
    }
  }

  private Answer answer(HttpServerRequest req, String text) {
    long now = System.currentTimeMillis();
    if (!("Bearer " + token).equals(req.getHeader("Authorization"))) {
      return error(401, "unauthorized", "unable to authenticate", null, now);
    }
    if (now < exhaustedUntil) {
      answered429.incrementAndGet();
      return new Answer(
          429,
          err("rate_limit_exceeded", "limit of " + rateLimit + " requests per hour reached", null),
          exhaustedUntil / 1000,
          0);
    }
    if (exhaustFor > 0) {
      long reset = (now + exhaustFor + 999) / 1000;
      exhaustFor = 0;
      exhaustedUntil = reset * 1000;
      Answer a = answerWithBudget(req, text, now);
      return new Answer(a.status, a.body, reset, 0);
    }
    return answerWithBudget(req, text, now);
  }

  private Answer answerWithBudget(HttpServerRequest req, String text, long now) {
    if (rateLimitBurst > 0) {
      rateLimitBurst--;
      answered429.incrementAndGet();
      return new Answer(
          429,
          err("rate_limit_exceeded", "limit of " + rateLimit + " requests per hour reached", null),
          now / 1000 + 1,
          0);
    }
    if (failures > 0) {
      failures--;
      if (failureStatus >= 500) {
        answered5xx.incrementAndGet();
      }
      return error(failureStatus, failureCode, "injected failure", null, now);
    }
    remaining = Math.max(1, remaining - 1);
    JsonObject body = null;
    if (!text.isEmpty()) {
      try {
        body = new JsonObject(text);
      } catch (RuntimeException e) {
        return error(400, "json_error", "malformed JSON", null, now);
      }
    }
    String path = req.path();
    if (!path.startsWith("/v1/")) {
      return error(404, "not_found", "no such path", null, now);
    }
    String[] p = path.substring(4).split("/");
    String method = req.method().name();
    try {
      if (p[0].equals("load_balancers")) {
        if (p.length == 1 && method.equals("GET")) {
          return ok(200, list(req), now);
        }
        if (p.length == 1 && method.equals("POST")) {
          return create(body, now);
        }
        if (p.length == 3 && p[1].equals("actions") && method.equals("GET")) {
          return action(Long.parseLong(p[2]), now);
        }
        long id = Long.parseLong(p[1]);
        Lb lb = lbs.get(id);
        if (lb == null) {
          return error(404, "not_found", "load balancer with ID '" + id + "' not found", null, now);
        }
        if (p.length == 2 && method.equals("GET")) {
          return ok(200, new JsonObject().put("load_balancer", json(lb)), now);
        }
        if (p.length == 2 && method.equals("PUT")) {
          if (body.containsKey("name")) {
            lb.name = body.getString("name");
          }
          if (body.containsKey("labels")) {
            lb.labels = new LinkedHashMap<>();
            body.getJsonObject("labels")
                .forEach(e -> lb.labels.put(e.getKey(), (String) e.getValue()));
          }
          return ok(200, new JsonObject().put("load_balancer", json(lb)), now);
        }
        if (p.length == 2 && method.equals("DELETE")) {
          if (lb.deleteProtection) {
            return error(403, "protected", "load balancer is delete protected", null, now);
          }
          if (lb.runningAction != 0) {
            return error(
                423, "locked", "load balancer is locked by action " + lb.runningAction, null, now);
          }
          lbs.remove(id);
          return new Answer(204, null, now / 1000 + 3600, remaining);
        }
        if (p.length == 4 && p[2].equals("actions") && method.equals("POST")) {
          return lbAction(lb, p[3], body == null ? new JsonObject() : body, now);
        }
      }
      if (p[0].equals("actions") && p.length == 2 && method.equals("GET")) {
        return action(Long.parseLong(p[1]), now);
      }
    } catch (NumberFormatException e) {
      return error(404, "not_found", "not found", null, now);
    }
    return error(404, "not_found", "no such path", null, now);
  }

  private JsonObject list(HttpServerRequest req) {
    String selector = req.getParam("label_selector");
    String name = req.getParam("name");
    int page = Integer.parseInt(req.params().get("page") == null ? "1" : req.getParam("page"));
    int perPage =
        Math.min(
            50,
            Integer.parseInt(req.getParam("per_page") == null ? "25" : req.getParam("per_page")));
    List<Lb> hits = new ArrayList<>();
    for (Lb lb : lbs.values()) {
      if (name != null && !name.equals(lb.name)) {
        continue;
      }
      if (selector != null && !matches(selector, lb.labels)) {
        continue;
      }
      hits.add(lb);
    }
    int total = hits.size();
    int lastPage = Math.max(1, (total + perPage - 1) / perPage);
    JsonArray items = new JsonArray();
    for (int i = (page - 1) * perPage; i < Math.min(total, page * perPage); i++) {
      items.add(json(hits.get(i)));
    }
    return new JsonObject()
        .put("load_balancers", items)
        .put(
            "meta",
            new JsonObject()
                .put(
                    "pagination",
                    new JsonObject()
                        .put("page", page)
                        .put("per_page", perPage)
                        .put("previous_page", page > 1 ? page - 1 : null)
                        .put("next_page", page < lastPage ? page + 1 : null)
                        .put("last_page", lastPage)
                        .put("total_entries", total)));
  }

  private static boolean matches(String selector, Map<String, String> labels) {
    for (String term : selector.split(",")) {
      String t = term.trim();
      int eq = t.indexOf('=');
      if (eq < 0) {
        if (!labels.containsKey(t)) {
          return false;
        }
      } else if (!t.substring(eq + 1).equals(labels.get(t.substring(0, eq)))) {
        return false;
      }
    }
    return true;
  }

  private Answer create(JsonObject body, long now) {
    if (body == null) {
      return error(400, "json_error", "no body", null, now);
    }
    String name = body.getString("name");
    String type = body.getString("load_balancer_type");
    String location = body.getString("location");
    String zone = body.getString("network_zone");
    if (name == null || name.isEmpty()) {
      return invalid("name", "name is required", now);
    }
    if (type == null || !TYPES.containsKey(type)) {
      return invalid("load_balancer_type", "unknown load balancer type", now);
    }
    if ((location == null) == (zone == null)) {
      return invalid("location", "exactly one of location and network_zone is required", now);
    }
    if (location != null && !LOCATIONS.containsKey(location)) {
      return invalid("location", "unknown location", now);
    }
    if (zone != null && !LOCATIONS.containsValue(zone)) {
      return invalid("network_zone", "unknown network zone", now);
    }
    if (lbs.values().stream().anyMatch(l -> l.name.equals(name))) {
      return error(
          409, "uniqueness_error", "name is already used", fields("name", "already used"), now);
    }
    String algorithm =
        body.getJsonObject("algorithm", new JsonObject()).getString("type", "round_robin");
    Map<String, String> labels = new LinkedHashMap<>();
    body.getJsonObject("labels", new JsonObject())
        .forEach(e -> labels.put(e.getKey(), (String) e.getValue()));
    JsonArray services = body.getJsonArray("services", new JsonArray());
    JsonArray targets = body.getJsonArray("targets", new JsonArray());
    for (int i = 0; i < targets.size(); i++) {
      long sid = targets.getJsonObject(i).getJsonObject("server").getLong("id");
      if (!servers.contains(sid)) {
        return invalid("targets", "server " + sid + " not found", now);
      }
    }
    String loc =
        location != null
            ? location
            : LOCATIONS.entrySet().stream()
                .filter(e -> e.getValue().equals(zone))
                .findFirst()
                .get()
                .getKey();
    Lb lb = newLb(name, type, loc, algorithm, labels);
    for (int i = 0; i < services.size(); i++) {
      JsonObject s = services.getJsonObject(i).copy();
      lb.services.put(s.getInteger("listen_port"), s);
    }
    for (int i = 0; i < targets.size(); i++) {
      JsonObject t = targets.getJsonObject(i);
      lb.targets.put(
          t.getJsonObject("server").getLong("id"), t.getBoolean("use_private_ip", false));
    }
    JsonObject action = startAction(lb, "create_load_balancer", () -> {}, () -> lbs.remove(lb.id));
    return ok(201, new JsonObject().put("load_balancer", json(lb)).put("action", action), now);
  }

  private Lb newLb(
      String name, String type, String location, String algorithm, Map<String, String> labels) {
    Lb lb = new Lb();
    lb.id = nextId++;
    lb.name = name;
    lb.type = type;
    lb.location = location;
    lb.algorithm = algorithm;
    lb.labels = new LinkedHashMap<>(labels);
    lb.ipv4 = "198.51.100." + (lb.id % 250 + 1);
    lb.ipv6 = "2001:db8::" + Long.toHexString(lb.id);
    lb.created = Instant.now().toString();
    lbs.put(lb.id, lb);
    return lb;
  }

  private Answer lbAction(Lb lb, String command, JsonObject body, long now) {
    if (lb.runningAction != 0) {
      return error(
          423, "locked", "load balancer is locked by action " + lb.runningAction, null, now);
    }
    Runnable effect;
    switch (command) {
      case "add_service" -> {
        int port = body.getInteger("listen_port", 0);
        if (port < 1 || port > 65535) {
          return invalid("listen_port", "must be 1-65535", now);
        }
        if (lb.services.containsKey(port)) {
          return error(
              409, "source_port_already_used", "listen port " + port + " is in use", null, now);
        }
        if (lb.services.size() >= TYPES.get(lb.type)[0]) {
          return error(
              403,
              "resource_limit_exceeded",
              "services limit of " + lb.type + " reached",
              null,
              now);
        }
        JsonObject s = body.copy();
        effect = () -> lb.services.put(port, s);
      }
      case "update_service" -> {
        int port = body.getInteger("listen_port", 0);
        JsonObject current = lb.services.get(port);
        if (current == null) {
          return error(404, "not_found", "service " + port + " not found", null, now);
        }
        JsonObject merged = current.copy().mergeIn(body, true);
        effect = () -> lb.services.put(port, merged);
      }
      case "delete_service" -> {
        int port = body.getInteger("listen_port", 0);
        if (!lb.services.containsKey(port)) {
          return error(404, "not_found", "service " + port + " not found", null, now);
        }
        effect = () -> lb.services.remove(port);
      }
      case "add_target" -> {
        if (!"server".equals(body.getString("type"))) {
          return invalid("type", "only server targets here", now);
        }
        long sid = body.getJsonObject("server", new JsonObject()).getLong("id", 0L);
        if (!servers.contains(sid)) {
          return error(404, "not_found", "server " + sid + " not found", null, now);
        }
        if (lb.targets.containsKey(sid)) {
          return error(
              409, "target_already_defined", "server " + sid + " is a target already", null, now);
        }
        if (lb.targets.size() >= TYPES.get(lb.type)[1]) {
          return error(
              403,
              "resource_limit_exceeded",
              "targets limit of " + lb.type + " reached",
              null,
              now);
        }
        boolean priv = body.getBoolean("use_private_ip", false);
        effect = () -> lb.targets.put(sid, priv);
      }
      case "remove_target" -> {
        long sid = body.getJsonObject("server", new JsonObject()).getLong("id", 0L);
        if (!lb.targets.containsKey(sid)) {
          return error(
              404, "load_balancer_target_not_found", "server " + sid + " is no target", null, now);
        }
        effect = () -> lb.targets.remove(sid);
      }
      case "change_algorithm" -> {
        String t = body.getString("type");
        if (!"round_robin".equals(t) && !"least_connections".equals(t)) {
          return invalid("type", "unknown algorithm", now);
        }
        effect = () -> lb.algorithm = t;
      }
      case "change_type" -> {
        String t = body.getString("load_balancer_type");
        if (!TYPES.containsKey(t)) {
          return invalid("load_balancer_type", "unknown load balancer type", now);
        }
        effect = () -> lb.type = t;
      }
      case "change_protection" -> {
        boolean d = body.getBoolean("delete", lb.deleteProtection);
        effect = () -> lb.deleteProtection = d;
      }
      default -> {
        return error(404, "not_found", "unknown action " + command, null, now);
      }
    }
    return ok(201, new JsonObject().put("action", startAction(lb, command, effect, () -> {})), now);
  }

  private JsonObject startAction(Lb lb, String command, Runnable effect, Runnable onError) {
    long id = nextId++;
    boolean fail = failedActions > 0;
    if (fail) {
      failedActions--;
    }
    JsonObject a =
        new JsonObject()
            .put("id", id)
            .put("command", command)
            .put("status", "running")
            .put("progress", 0)
            .put("started", Instant.now().toString())
            .put("finished", (String) null)
            .put("error", (JsonObject) null)
            .put(
                "resources",
                new JsonArray()
                    .add(new JsonObject().put("id", lb.id).put("type", "load_balancer")));
    actions.put(id, a);
    lb.runningAction = id;
    vertx.setTimer(
        Math.max(1, actionDurationMs),
        t -> {
          synchronized (this) {
            lb.runningAction = 0;
            a.put("progress", 100).put("finished", Instant.now().toString());
            if (fail) {
              a.put("status", "error")
                  .put(
                      "error",
                      new JsonObject()
                          .put("code", "action_failed")
                          .put("message", "Action failed"));
              onError.run();
            } else {
              effect.run();
              a.put("status", "success");
            }
          }
        });
    return a.copy();
  }

  private Answer action(long id, long now) {
    JsonObject a = actions.get(id);
    if (a == null) {
      return error(404, "not_found", "action with ID '" + id + "' not found", null, now);
    }
    return ok(200, new JsonObject().put("action", a.copy()), now);
  }

  private JsonObject json(Lb lb) {
    JsonArray services = new JsonArray();
    lb.services.values().forEach(s -> services.add(s.copy()));
    JsonArray targets = new JsonArray();
    lb.targets.forEach(
        (sid, priv) ->
            targets.add(
                new JsonObject()
                    .put("type", "server")
                    .put("server", new JsonObject().put("id", sid))
                    .put("use_private_ip", priv)
                    .put("health_status", new JsonArray())));
    JsonObject labels = new JsonObject();
    lb.labels.forEach(labels::put);
    return new JsonObject()
        .put("id", lb.id)
        .put("name", lb.name)
        .put(
            "public_net",
            new JsonObject()
                .put("enabled", true)
                .put("ipv4", new JsonObject().put("ip", lb.ipv4).put("dns_ptr", "static.example"))
                .put("ipv6", new JsonObject().put("ip", lb.ipv6).put("dns_ptr", "static.example")))
        .put("private_net", new JsonArray())
        .put(
            "location",
            new JsonObject()
                .put("name", lb.location)
                .put("network_zone", LOCATIONS.get(lb.location)))
        .put("load_balancer_type", new JsonObject().put("name", lb.type))
        .put("protection", new JsonObject().put("delete", lb.deleteProtection))
        .put("labels", labels)
        .put("created", lb.created)
        .put("services", services)
        .put("targets", targets)
        .put("algorithm", new JsonObject().put("type", lb.algorithm))
        .put("outgoing_traffic", 0)
        .put("ingoing_traffic", 0)
        .put("included_traffic", 21990232555520L);
  }

  private Answer ok(int status, JsonObject body, long now) {
    return new Answer(status, body, now / 1000 + 3600, remaining);
  }

  private Answer invalid(String field, String message, long now) {
    return error(
        400,
        "invalid_input",
        "invalid input in field '" + field + "'",
        fields(field, message),
        now);
  }

  private static JsonObject fields(String field, String message) {
    return new JsonObject()
        .put(
            "fields",
            new JsonArray()
                .add(
                    new JsonObject()
                        .put("name", field)
                        .put("messages", new JsonArray().add(message))));
  }

  private Answer error(int status, String code, String message, JsonObject details, long now) {
    return new Answer(status, err(code, message, details), now / 1000 + 3600, remaining);
  }

  private static JsonObject err(String code, String message, JsonObject details) {
    return new JsonObject()
        .put(
            "error",
            new JsonObject().put("code", code).put("message", message).put("details", details));
  }
}
