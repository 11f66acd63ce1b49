package dev.pier.dns.externaldns;

import dev.pier.dns.ChangeSet;
import dev.pier.dns.DnsException;
import dev.pier.dns.DnsNames;
import dev.pier.dns.DnsProvider;
import dev.pier.dns.DnsZone;
import dev.pier.dns.RecordSet;
import dev.pier.util.AnswerLimit;
import dev.pier.util.HttpAnswer;
import dev.pier.util.RequestFence;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DNS provider behind external-dns's webhook provider protocol (the OpenAPI file {@code
 * api/webhook.yaml} of external-dns): {@code GET /} for the domain filter, {@code GET /records},
 * {@code POST /adjustendpoints} and {@code POST /records} with a {@code Changes} object. Every
 * request and answer has the media type {@value #MEDIA_TYPE}.
 *
 * <p>The zones are the domains of the filter (zone id = the domain's canonical name); the protocol
 * cannot create zones. The protocol has no comments, so ownership is Pier's own TXT registry
 * ({@link TxtRegistry}): reading, an A, AAAA or CNAME rrset carries the owner mark of its registry
 * record, and the registry records themselves are left out of what {@link #recordSets} returns;
 * writing, each owned rrset's registry record is created, updated or deleted in the same {@code
 * POST /records}. A registry name held by a TXT record Pier did not write stops the change
 * (rejected): it is never overwritten.
 *
 * <p>There is no per-name read: every read lists all records. A change set is planned against a
 * fresh listing (replaces of existing rrsets become UpdateOld/UpdateNew pairs holding the exact
 * current endpoint, new ones Creates, deletes the exact current endpoint) and sent as one {@code
 * POST /records}; how atomically that lands is up to the webhook provider.
 *
 * <p>The listing is read up to the inventory {@link AnswerLimit}, every other answer up to the
 * answer limit.
 */
public final class ExternalDnsWebhookProvider implements DnsProvider {
  private static final Logger log = LoggerFactory.getLogger(ExternalDnsWebhookProvider.class);
  public static final String MEDIA_TYPE = "application/external.dns.webhook+json;version=1";

  private final HttpClient client;
  private final ExternalDnsOptions options;
  private final RequestFence fence;
  private final TxtRegistry registry;
  private Future<State> listing;

  public ExternalDnsWebhookProvider(Vertx vertx, ExternalDnsOptions options) {
    this(vertx, options, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each request goes: a deposed leader sends nothing more
   */
  public ExternalDnsWebhookProvider(Vertx vertx, ExternalDnsOptions options, RequestFence fence) {
    this.options = options;
    this.fence = fence;
    this.registry = new TxtRegistry(options.getTxtPrefix());
    this.client = HttpAnswer.client(vertx, options.getTimeout(), options.getMaxConnections());
    log.info(
        "external-dns webhook provider at {}, registry TXT prefix '{}'",
        options.getUrl(),
        options.getTxtPrefix());
  }

  @Override
  public String name() {
    return "externaldns";
  }

  @Override
  public Future<List<DnsZone>> zones() {
    return call(HttpMethod.GET, "/", null, options.getAnswerLimit(), "negotiate the domain filter")
        .map(r -> domains(object(r, "negotiate")).stream().map(this::zoneOf).toList());
  }

  private DnsZone zoneOf(String domain) {
    return new DnsZone(DnsNames.canonical(domain), domain);
  }

  /**
   * The domains of a domain filter: {@code include} (external-dns 0.15 and later) or {@code
   * filters} (before); the excluded ones are subdomains and make no zones of their own.
   */
  static List<String> domains(JsonObject filter) {
    JsonArray list = filter.getJsonArray("include");
    if (list == null || list.isEmpty()) {
      list = filter.getJsonArray("filters");
    }
    if (list == null) {
      return List.of();
    }
    return list.stream()
        .map(String::valueOf)
        .filter(s -> !s.isBlank())
        .map(DnsNames::canonical)
        .distinct()
        .toList();
  }

  @Override
  public Future<Optional<DnsZone>> zone(String id) {
    String wanted = DnsNames.canonical(id);
    return zones().map(zs -> zs.stream().filter(z -> z.name().equals(wanted)).findFirst());
  }

  @Override
  public Future<DnsZone> createZone(String name) {
    return Future.failedFuture(
        DnsException.invalid(
            "external-dns webhook provider at "
                + options.getUrl()
                + ": cannot create zone "
                + DnsNames.canonical(name)
                + ": the webhook protocol has no call for it; create the zone in the DNS service"
                + " and add it to the webhook provider's domain filter"));
  }

  @Override
  public Future<List<RecordSet>> recordSets(DnsZone zone, String name) {
    String n = DnsNames.canonical(name);
    return read().map(s -> s.recordSets(zone, n));
  }

  @Override
  public Future<List<RecordSet>> recordSets(DnsZone zone) {
    return read().map(s -> s.recordSets(zone, null));
  }

  @Override
  public Future<Void> apply(DnsZone zone, ChangeSet changes) {
    if (changes.isEmpty()) {
      return Future.succeededFuture();
    }
    for (RecordSet r : changes.deletes()) {
      if (!DnsNames.within(r.name(), zone.name())) {
        return Future.failedFuture(
            DnsException.invalid(r.label() + " is outside the zone " + zone.name()));
      }
    }
    for (RecordSet r : changes.replaces()) {
      if (!DnsNames.within(r.name(), zone.name())) {
        return Future.failedFuture(
            DnsException.invalid(r.label() + " is outside the zone " + zone.name()));
      }
    }
    return read()
        .compose(
            state -> {
              Plan plan;
              try {
                plan = plan(state, changes);
              } catch (DnsException e) {
                return Future.failedFuture(e);
              }
              if (plan.isEmpty()) {
                return Future.succeededFuture();
              }
              return adjust(plan)
                  .compose(p -> p.isEmpty() ? Future.<Void>succeededFuture() : post(p, zone))
                  .onComplete(done -> forgetListing());
            });
  }

  /** The four lists of a {@code Changes} object. */
  record Plan(
      List<JsonObject> create,
      List<JsonObject> updateOld,
      List<JsonObject> updateNew,
      List<JsonObject> delete) {
    boolean isEmpty() {
      return create.isEmpty() && updateOld.isEmpty() && delete.isEmpty();
    }

    JsonObject toJson() {
      return new JsonObject()
          .put("Create", new JsonArray(new ArrayList<>(create)))
          .put("UpdateOld", new JsonArray(new ArrayList<>(updateOld)))
          .put("UpdateNew", new JsonArray(new ArrayList<>(updateNew)))
          .put("Delete", new JsonArray(new ArrayList<>(delete)));
    }
  }

  /** The Changes for a change set against what the provider holds now. */
  Plan plan(State state, ChangeSet changes) {
    List<JsonObject> create = new ArrayList<>();
    List<JsonObject> updateOld = new ArrayList<>();
    List<JsonObject> updateNew = new ArrayList<>();
    List<JsonObject> delete = new ArrayList<>();
    for (RecordSet d : changes.deletes()) {
      Key k = new Key(d.name(), d.type());
      Endpoint cur = state.visible.get(k);
      Endpoint reg = state.registryOf.get(k);
      if (cur == null) {
        // Already gone: only a registry record left behind goes.
        if (reg != null && Objects.equals(state.markOf(k), d.owner())) {
          delete.add(reg.json());
        }
        continue;
      }
      if (reg == null || !Objects.equals(state.markOf(k), d.owner())) {
        throw DnsException.rejected(
            d.label()
                + " is no longer marked "
                + d.owner()
                + " in the TXT registry: another writer changed it; not deleted");
      }
      delete.add(cur.json());
      delete.add(reg.json());
    }
    for (RecordSet r : changes.replaces()) {
      Key k = new Key(r.name(), r.type());
      Endpoint cur = state.visible.get(k);
      Endpoint reg = state.registryOf.get(k);
      JsonObject want = endpoint(r.name(), r.type(), r.ttl(), targets(r));
      if (cur != null) {
        if (reg == null) {
          throw DnsException.rejected(
              r.label() + " holds records without Pier's TXT registry record: not changed");
        }
        if (!mayRewrite(state.markOf(k), r.owner())) {
          throw DnsException.rejected(
              r.label()
                  + " is marked "
                  + state.markOf(k)
                  + " in the TXT registry: another writer's; not changed");
        }
        updateOld.add(cur.json());
        updateNew.add(want);
      } else {
        create.add(want);
      }
      if (r.owner() == null) {
        continue;
      }
      String regName = registry.registryName(r.name(), r.type());
      DnsNames.nameProblem(regName)
          .ifPresent(
              p -> {
                throw DnsException.rejected(
                    r.label() + ": its TXT registry name " + regName + " is too long: " + p);
              });
      JsonObject txt =
          endpoint(
              regName, "TXT", r.ttl(), List.of(TxtRegistry.value(r.owner(), resourceOf(r.name()))));
      if (reg != null) {
        if (!reg.targets().equals(List.of(txt.getJsonArray("targets").getString(0)))
            || reg.ttl() != r.ttl()) {
          updateOld.add(reg.json());
          updateNew.add(txt);
        }
      } else {
        Endpoint foreign = state.visible.get(new Key(regName, "TXT"));
        if (foreign != null) {
          throw DnsException.rejected(
              r.label()
                  + ": its TXT registry name "
                  + regName
                  + " holds a TXT record Pier did not write ("
                  + String.join(" ", foreign.targets())
                  + "): not overwritten; change dns.externalDns.txtPrefix or remove that record");
        }
        create.add(txt);
      }
    }
    return new Plan(create, updateOld, updateNew, delete);
  }

  /**
   * Whether an rrset marked {@code current} may be rewritten with {@code wanted}: the same mark, or
   * the old-scheme mark (the owner id alone) of the same owner id, which the diff adopts only when
   * it holds exactly this cluster's records.
   */
  static boolean mayRewrite(String current, String wanted) {
    if (current == null || wanted == null) {
      return false;
    }
    return current.equals(wanted) || wanted.startsWith(current + RecordSet.CLUSTER_MARK);
  }

  /** {@code service/<ns>/<name>} for a name of Pier's scheme, or null. */
  String resourceOf(String name) {
    DnsNames names = options.getNames();
    if (names == null) {
      return null;
    }
    String[] labels = DnsNames.canonical(name).split("\\.");
    if (labels.length < 5
        || !labels[2].equals(names.federation())
        || !labels[3].equals("svc")
        || !DnsNames.within(name, names.suffix())) {
      return null;
    }
    return "service/" + labels[1] + "/" + labels[0];
  }

  private static List<String> targets(RecordSet r) {
    if (!r.type().equals(RecordSet.CNAME)) {
      return r.records();
    }
    // external-dns writes alias targets without the trailing dot.
    return r.records().stream().map(ExternalDnsWebhookProvider::bare).toList();
  }

  private static String bare(String name) {
    String c = DnsNames.canonical(name);
    return c.substring(0, c.length() - 1);
  }

  static JsonObject endpoint(String name, String type, long ttl, List<String> targets) {
    return new JsonObject()
        .put("dnsName", bare(name))
        .put("targets", new JsonArray(new ArrayList<>(targets)))
        .put("recordType", type)
        .put("recordTTL", ttl);
  }

  /**
   * Sends the endpoints to write through {@code POST /adjustendpoints} and writes what comes back
   * in their place. An endpoint the provider drops cannot be written there: the change is refused.
   */
  private Future<Plan> adjust(Plan plan) {
    List<JsonObject> desired = new ArrayList<>(plan.create());
    desired.addAll(plan.updateNew());
    if (desired.isEmpty()) {
      return Future.succeededFuture(plan);
    }
    return call(
            HttpMethod.POST,
            "/adjustendpoints",
            new JsonArray(new ArrayList<>(desired)).toBuffer(),
            options.getAnswerLimit(),
            "adjust endpoints")
        .map(
            r -> {
              Map<Key, JsonObject> adjusted = new HashMap<>();
              for (Object o : array(r, "adjust endpoints")) {
                if (o instanceof JsonObject e && e.getString("dnsName") != null) {
                  adjusted.put(new Key(e.getString("dnsName"), e.getString("recordType", "")), e);
                }
              }
              return withoutNoOps(
                  new Plan(
                      replaceAdjusted(plan.create(), adjusted),
                      plan.updateOld(),
                      replaceAdjusted(plan.updateNew(), adjusted),
                      plan.delete()));
            });
  }

  /**
   * Drops the updates whose adjusted new endpoint equals the old one: a provider that raises TTLs
   * to its minimum makes Pier's TTL differ on every read, and that must not become a write on every
   * sync.
   */
  static Plan withoutNoOps(Plan plan) {
    List<JsonObject> oldOnes = new ArrayList<>();
    List<JsonObject> newOnes = new ArrayList<>();
    for (int i = 0; i < plan.updateOld().size(); i++) {
      JsonObject o = plan.updateOld().get(i);
      JsonObject n = plan.updateNew().get(i);
      if (!sameRecords(o, n)) {
        oldOnes.add(o);
        newOnes.add(n);
      }
    }
    return new Plan(plan.create(), oldOnes, newOnes, plan.delete());
  }

  private static boolean sameRecords(JsonObject a, JsonObject b) {
    return new Key(a.getString("dnsName"), a.getString("recordType"))
            .equals(new Key(b.getString("dnsName"), b.getString("recordType")))
        && a.getLong("recordTTL", 0L).equals(b.getLong("recordTTL", 0L))
        && Objects.equals(a.getString("setIdentifier", ""), b.getString("setIdentifier", ""))
        && sortedTargets(a).equals(sortedTargets(b));
  }

  private static List<String> sortedTargets(JsonObject e) {
    return e.getJsonArray("targets", new JsonArray()).stream()
        .map(String::valueOf)
        .sorted()
        .toList();
  }

  private static List<JsonObject> replaceAdjusted(
      List<JsonObject> endpoints, Map<Key, JsonObject> adjusted) {
    List<JsonObject> out = new ArrayList<>();
    for (JsonObject e : endpoints) {
      Key k = new Key(e.getString("dnsName"), e.getString("recordType"));
      JsonObject a = adjusted.get(k);
      if (a == null) {
        throw DnsException.rejected(
            k.name() + " " + k.type() + ": dropped by the webhook provider's adjustendpoints");
      }
      out.add(a);
    }
    return out;
  }

  private Future<Void> post(Plan plan, DnsZone zone) {
    return call(
            HttpMethod.POST,
            "/records",
            plan.toJson().toBuffer(),
            options.getAnswerLimit(),
            "update " + zone.name())
        .mapEmpty();
  }

  /**
   * Every record the provider holds, with Pier's registry sorted out. The publisher reads a
   * Service's names all at once and the protocol can only list everything, so reads that start
   * while a listing is in flight share it; a change set applied meanwhile ends the sharing, so no
   * read started after a write sees what was there before it.
   */
  private Future<State> read() {
    synchronized (this) {
      if (listing != null) {
        return listing;
      }
    }
    Future<State> f =
        call(HttpMethod.GET, "/records", null, options.getInventoryLimit(), "list records")
            .map(r -> new State(registry, parseEndpoints(array(r, "list records"))));
    synchronized (this) {
      if (listing == null && !f.isComplete()) {
        listing = f;
      }
    }
    f.onComplete(done -> forget(f));
    return f;
  }

  private synchronized void forgetListing() {
    listing = null;
  }

  private synchronized void forget(Future<State> f) {
    if (listing == f) {
      listing = null;
    }
  }

  static List<Endpoint> parseEndpoints(JsonArray array) {
    List<Endpoint> out = new ArrayList<>();
    for (Object o : array) {
      if (!(o instanceof JsonObject e) || e.getString("dnsName") == null) {
        throw DnsException.retry(
            "external-dns webhook provider listed an endpoint without dnsName");
      }
      JsonArray t = e.getJsonArray("targets", new JsonArray());
      out.add(
          new Endpoint(
              DnsNames.canonical(e.getString("dnsName")),
              e.getString("recordType", "").toUpperCase(Locale.ROOT),
              e.getLong("recordTTL", 0L),
              t.stream().map(String::valueOf).toList(),
              e.getString("setIdentifier", ""),
              e));
    }
    return out;
  }

  /** One endpoint as listed: canonical name, upper case type, and the JSON as received. */
  record Endpoint(
      String name,
      String type,
      long ttl,
      List<String> targets,
      String setIdentifier,
      JsonObject json) {}

  record Key(String name, String type) {
    Key {
      name = DnsNames.canonical(name);
      type = type.toUpperCase(Locale.ROOT);
    }
  }

  /** A listing split into the visible endpoints and Pier's registry records. */
  static final class State {
    final Map<Key, Endpoint> visible = new LinkedHashMap<>();
    final List<Endpoint> all = new ArrayList<>();
    final Map<Key, Endpoint> registryOf = new HashMap<>();
    private final Map<Key, String> marks = new HashMap<>();

    State(TxtRegistry registry, List<Endpoint> endpoints) {
      Set<Endpoint> hidden = new HashSet<>();
      for (Endpoint e : endpoints) {
        if (!e.type().equals("TXT") || !e.setIdentifier().isEmpty()) {
          continue;
        }
        Optional<String[]> guarded = registry.guarded(e.name());
        Optional<String> mark =
            e.targets().stream().map(TxtRegistry::ownerMark).flatMap(Optional::stream).findFirst();
        if (guarded.isPresent() && mark.isPresent()) {
          Key k = new Key(guarded.get()[0], guarded.get()[1]);
          registryOf.put(k, e);
          marks.put(k, mark.get());
          hidden.add(e);
        }
      }
      for (Endpoint e : endpoints) {
        if (hidden.contains(e)) {
          continue;
        }
        all.add(e);
        // Routing variants (setIdentifier) are other writers' business: listed, never keyed
        // for writing over.
        visible.putIfAbsent(new Key(e.name(), e.type()), e);
      }
    }

    String markOf(Key k) {
      return marks.get(k);
    }

    List<RecordSet> recordSets(DnsZone zone, String name) {
      List<RecordSet> out = new ArrayList<>();
      for (Endpoint e : all) {
        if (!DnsNames.within(e.name(), zone.name()) || (name != null && !e.name().equals(name))) {
          continue;
        }
        List<String> records =
            e.type().equals(RecordSet.CNAME)
                ? e.targets().stream().map(DnsNames::canonical).toList()
                : e.targets();
        Key k = new Key(e.name(), e.type());
        RecordSet r = new RecordSet(e.name(), e.type(), e.ttl(), records, null);
        String owner =
            r.isAddressOrAlias() && e.setIdentifier().isEmpty() && visible.get(k) == e
                ? marks.get(k)
                : null;
        out.add(owner == null ? r : new RecordSet(e.name(), e.type(), e.ttl(), records, owner));
      }
      return out;
    }
  }

  private Future<HttpAnswer> call(
      HttpMethod method, String path, Buffer body, AnswerLimit limit, String what) {
    RuntimeException refused = fence.refusal(fence.term(), "external-dns " + what);
    if (refused != null) {
      return Future.failedFuture(refused);
    }
    long ms = options.getTimeout().toMillis();
    RequestOptions req =
        new RequestOptions()
            .setMethod(method)
            .setAbsoluteURI(options.getUrl() + path)
            .putHeader("Accept", MEDIA_TYPE)
            .setTimeout(ms);
    if (body != null) {
      req.putHeader("Content-Type", MEDIA_TYPE);
    }
    return HttpAnswer.send(client, req, body, limit, "external-dns " + what)
        .timeout(ms, TimeUnit.MILLISECONDS)
        .recover(
            e ->
                Future.failedFuture(
                    e instanceof AnswerLimit.Passed
                        ? DnsException.retry(e.getMessage(), e)
                        : DnsException.retry(
                            "external-dns webhook provider at "
                                + options.getUrl()
                                + ": cannot "
                                + what
                                + ": "
                                + (e.getMessage() == null ? e.toString() : e.getMessage()),
                            e)))
        .compose(r -> check(r, method, path, what).map(r));
  }

  /**
   * Maps the answer's status: 2xx is success; 400, 406 and 415 say Pier's request is wrong for this
   * provider (invalid); a 500 or 422 to {@code POST /records} is the provider refusing the changes
   * (rejected: retried, and the publisher then sends names one by one); anything else retries.
   */
  private Future<Void> check(HttpAnswer r, HttpMethod method, String path, String what) {
    int code = r.statusCode();
    if (code >= 200 && code < 300) {
      return Future.succeededFuture();
    }
    String text = r.bodyAsString().trim();
    if (text.length() > 200) {
      text = text.substring(0, 200);
    }
    String msg =
        "external-dns webhook provider: cannot "
            + what
            + ": HTTP "
            + code
            + (text.isEmpty() ? "" : ": " + text);
    if (code == 400 || code == 406 || code == 415) {
      return Future.failedFuture(DnsException.invalid(msg));
    }
    if ((code == 500 || code == 422) && method == HttpMethod.POST && path.equals("/records")) {
      return Future.failedFuture(DnsException.rejected(msg));
    }
    return Future.failedFuture(DnsException.retry(msg));
  }

  private static JsonObject object(HttpAnswer r, String what) {
    try {
      return new JsonObject(r.body());
    } catch (RuntimeException e) {
      throw DnsException.retry(
          "external-dns webhook provider: cannot " + what + ": the answer is no JSON object", e);
    }
  }

  private static JsonArray array(HttpAnswer r, String what) {
    try {
      return new JsonArray(r.body());
    } catch (RuntimeException e) {
      throw DnsException.retry(
          "external-dns webhook provider: cannot " + what + ": the answer is no JSON array", e);
    }
  }

  @Override
  public Future<Void> close() {
    client.close();
    return Future.succeededFuture();
  }
}
