package dev.pier.federation.sync;

import dev.pier.federation.CopyState;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.model.Addresses;
import dev.pier.model.ServiceKey;
import dev.pier.retry.ExponentialBackoff;
import dev.pier.shards.ShardHolders;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation's traffic between replicas under scale-out, over the clustered event bus: a
 * member's owner answers reads of its copies ({@link Addresses#federationCopies}) and tells the
 * host's owner when one changed ({@link Addresses#FEDERATION_CHANGED}). Messages are keys and
 * {@link CopyState}s as JSON; every request has a deadline. Runs on the federation's context.
 */
final class CopyExchange {
  private static final Logger log = LoggerFactory.getLogger(CopyExchange.class);
  static final Duration DEADLINE = Duration.ofSeconds(2);

  /** The pause after a first telling that failed; each next one doubles. */
  static final Duration FIRST_PAUSE = Duration.ofSeconds(1);

  /** The longest pause between two tellings of one change. */
  static final Duration MAX_PAUSE = Duration.ofSeconds(30);

  /** How long a change is told before it is given up on. */
  static final Duration TELL_WINDOW = Duration.ofMinutes(10);

  private static final int NOT_OWNER = 503;
  private static final int UNKNOWN = 404;

  private final Vertx vertx;
  private final Members members;
  private final FederationShards shards;
  private final CopyReader.Local local;
  private final Map<String, MessageConsumer<JsonObject>> answering = new HashMap<>();
  private MessageConsumer<String> changes;
  private final Map<ServiceKey, Untold> untold = new HashMap<>();
  private boolean closed;

  /**
   * @param local what this replica's caches say of the copies in the members it owns
   */
  CopyExchange(Vertx vertx, Members members, FederationShards shards, CopyReader.Local local) {
    this.vertx = vertx;
    this.members = members;
    this.shards = shards;
    this.local = local;
  }

  /**
   * This replica owns the member now: it answers the reads of its copies. Completes once the other
   * replicas can reach it.
   */
  Future<Void> answer(String member) {
    MessageConsumer<JsonObject> c = answering.get(member);
    if (c == null) {
      c =
          vertx
              .eventBus()
              .<JsonObject>consumer(Addresses.federationCopies(member), m -> reply(member, m));
      answering.put(member, c);
    }
    return c.completion();
  }

  /** This replica no longer owns the member. */
  void stopAnswering(String member) {
    MessageConsumer<JsonObject> c = answering.remove(member);
    if (c != null) {
      c.unregister();
    }
  }

  /** This replica runs the host side now: members' owners tell it of changed copies. */
  Future<Void> listenForChanges(Consumer<ServiceKey> changed) {
    if (changes == null) {
      changes =
          vertx
              .eventBus()
              .<String>consumer(
                  Addresses.FEDERATION_CHANGED,
                  m -> {
                    try {
                      changed.accept(ServiceKey.parse(m.body()));
                      m.reply("ok");
                    } catch (IllegalArgumentException e) {
                      m.fail(400, "not a Service key: " + e.getMessage());
                    }
                  });
    }
    return changes.completion();
  }

  void stopListening() {
    if (changes != null) {
      changes.unregister();
      changes = null;
    }
  }

  /**
   * Tells the host's owner that a copy of {@code hostKey} changed, until one acknowledges it: a
   * telling that times out or finds no handler (the host's shard between owners, or a registration
   * this side of the bus has not seen yet) is told again after a pause that doubles from {@link
   * #FIRST_PAUSE} up to {@link #MAX_PAUSE}, for at most {@link #TELL_WINDOW}. A change while a
   * telling is on its way is told again after it. An acknowledged change is in the owner's queue; a
   * replica that takes the host's shard runs every host key.
   */
  void tellChanged(ServiceKey hostKey) {
    Untold pending = untold.get(hostKey);
    if (pending != null) {
      pending.changes++;
      return;
    }
    untold.put(hostKey, new Untold(System.nanoTime()));
    tell(hostKey, 1);
  }

  private void tell(ServiceKey hostKey, int attempt) {
    Untold pending = untold.get(hostKey);
    if (closed || pending == null) {
      return;
    }
    int changes = pending.changes;
    vertx
        .eventBus()
        .request(Addresses.FEDERATION_CHANGED, hostKey.toString(), deadline())
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                told(hostKey, pending, changes);
              } else {
                tellAgain(hostKey, pending, attempt, ar.cause());
              }
            });
  }

  private void told(ServiceKey hostKey, Untold pending, int changes) {
    if (pending.changes == changes) {
      untold.remove(hostKey);
    } else {
      // Changed again while this telling was on its way: the owner may have read before that.
      untold.put(hostKey, new Untold(System.nanoTime()));
      tell(hostKey, 1);
    }
  }

  private void tellAgain(ServiceKey hostKey, Untold pending, int attempt, Throwable e) {
    boolean lost =
        e instanceof ReplyException r
            && (r.failureType() == ReplyFailure.TIMEOUT
                || r.failureType() == ReplyFailure.NO_HANDLERS);
    long pause = ExponentialBackoff.delay(FIRST_PAUSE, MAX_PAUSE, attempt).toMillis();
    boolean inWindow =
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) - pending.since
            < TELL_WINDOW.toNanos();
    if (lost && inWindow && !closed) {
      log.debug("Telling the host's owner of {} failed, again in {} ms: {}", hostKey, pause, e);
      vertx.setTimer(pause, t -> tell(hostKey, attempt + 1));
      return;
    }
    untold.remove(hostKey);
    if (!closed) {
      log.warn(
          "Could not tell the host's owner that a copy of {} changed ({} attempts): {}; its"
              + " aggregate runs again on the next change or when the host side moves",
          hostKey,
          attempt,
          e.getMessage());
    }
  }

  /** A change not yet acknowledged by the host's owner: since when, and how many came since. */
  private static final class Untold {
    final long since;
    int changes;

    Untold(long since) {
      this.since = since;
    }
  }

  /** The copy as the member's owner sees it; fails when it cannot say now. */
  Future<CopyState> read(Member member, String namespace, String name) {
    return ask(member.name(), new JsonObject().put("namespace", namespace).put("name", name))
        .map(CopyState::fromJson);
  }

  /** How many copies Pier owns in the member, as its owner sees them; fails when it cannot say. */
  Future<Integer> ownedCopies(String member) {
    return ask(member, new JsonObject().put("count", true))
        .map(answer -> answer.getInteger("owned"));
  }

  /**
   * Asks the owner of {@code member}'s shard, and believes only an answer sealed by the holder of
   * that shard's Lease as this replica last read it: any other fails, as an unknown copy does.
   */
  private Future<JsonObject> ask(String member, JsonObject question) {
    String nonce = UUID.randomUUID().toString();
    return vertx
        .eventBus()
        .<JsonObject>request(
            Addresses.federationCopies(member), question.put("nonce", nonce), deadline())
        .compose(reply -> opened(member, nonce, reply.body()));
  }

  private Future<JsonObject> opened(String member, String nonce, JsonObject sealed) {
    String answer = sealed.getString("answer");
    ShardHolders holders = shards.holders();
    if (answer == null
        || (holders != null
            && !holders.fromHolder(
                shards.memberShard(member),
                sealed.getString("replica"),
                nonce,
                answer,
                sealed.getString("seal")))) {
      log.warn(
          "An answer about member {}'s copies from '{}' is not sealed by the holder of its shard"
              + " as last read: taken as unknown",
          member,
          sealed.getString("replica"));
      return Future.failedFuture(
          "the answer about member " + member + " is not from the holder of its shard");
    }
    try {
      return Future.succeededFuture(new JsonObject(answer));
    } catch (RuntimeException e) {
      return Future.failedFuture("the answer about member " + member + " is not JSON");
    }
  }

  /** The answer to a question about {@code member}, sealed with this replica's key. */
  private JsonObject sealed(String member, Message<JsonObject> question, JsonObject answer) {
    String text = answer.encode();
    JsonObject sealed = new JsonObject().put("answer", text);
    ShardHolders holders = shards.holders();
    if (holders != null) {
      String nonce = question.body().getString("nonce", "");
      sealed
          .put("replica", holders.identity())
          .put("seal", holders.seal(nonce, shards.memberShard(member), text));
    }
    return sealed;
  }

  void close() {
    closed = true;
    untold.clear();
    answering.keySet().stream().toList().forEach(this::stopAnswering);
    stopListening();
  }

  private void reply(String name, Message<JsonObject> m) {
    if (!shards.runsMember(name)) {
      m.fail(NOT_OWNER, "this replica does not own member " + name + " now");
      // Its loss is on its way here, or a handover went wrong: either way, a handler left on the
      // address would take a share of the reads, and refuse them, for good.
      stopAnswering(name);
      return;
    }
    Member member = members.get(name);
    boolean count = m.body().getBoolean("count", false);
    if (member == null) {
      // Forgotten here: it left and its copies were drained (or given up on).
      if (count) {
        m.reply(sealed(name, m, new JsonObject().put("owned", 0)));
      } else {
        m.fail(UNKNOWN, "member " + name + " is not in the federation here");
      }
      return;
    }
    if (count) {
      if (!member.access().servicesSynced()) {
        m.fail(NOT_OWNER, notRead(member));
        return;
      }
      m.reply(sealed(name, m, new JsonObject().put("owned", local.owned(member))));
      return;
    }
    String namespace = m.body().getString("namespace");
    String svc = m.body().getString("name");
    if (namespace == null || svc == null) {
      m.fail(400, "a copy read needs namespace and name");
      return;
    }
    if (!member.access().servicesSynced(namespace)) {
      m.fail(NOT_OWNER, notRead(member));
      return;
    }
    m.reply(sealed(name, m, local.state(member, namespace, svc).toJson()));
  }

  /**
   * The copy of a member this replica owns, from its caches; fails while they are not filled (an
   * empty cache is no proof of no copy).
   */
  Future<CopyState> readOwn(Member member, String namespace, String name) {
    return member.access().servicesSynced(namespace)
        ? Future.succeededFuture(local.state(member, namespace, name))
        : Future.failedFuture(notRead(member));
  }

  private static String notRead(Member member) {
    return "the Services of member " + member.name() + " are not read yet";
  }

  private static DeliveryOptions deadline() {
    return new DeliveryOptions().setSendTimeout(DEADLINE.toMillis());
  }
}
