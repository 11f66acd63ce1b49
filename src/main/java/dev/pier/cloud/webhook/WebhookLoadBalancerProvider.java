package dev.pier.cloud.webhook;

import dev.pier.cloud.EnsureResult;
import dev.pier.cloud.LoadBalancerProvider;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.VerifyResult;
import dev.pier.cloud.webhook.WebhookJson.Answer;
import dev.pier.cloud.webhook.WebhookJson.WebhookError;
import dev.pier.log.ServiceLog;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import dev.pier.retry.ExponentialBackoff;
import dev.pier.util.AnswerLimit;
import dev.pier.util.ClientPools;
import dev.pier.util.Egress;
import dev.pier.util.RequestFence;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;

/**
 * Drives any load balancer through the HTTP+JSON contract of {@code docs/webhook-provider.md}:
 * {@code POST <url>/get}, {@code /ensure}, {@code /update-hosts} and {@code /delete}, and the
 * optional {@code /list} for the orphan sweep, and the optional {@code /verify}: a webhook that
 * answers it 404 does not implement it, and from then on this provider verifies by calling {@code
 * /ensure}.
 *
 * <p>Network errors, timeouts and 5xx answers (except 503 with Retry-After) are retried here with a
 * doubling delay; 429 and 503 with {@code Retry-After} become {@code RetryAfter}; 422 {@code
 * invalid_input} becomes {@code InvalidInput}; 409 {@code implemented_elsewhere} becomes {@code
 * ImplementedElsewhere}; any other answer is a {@code Retry}. An answer longer than its {@link
 * AnswerLimit} is a {@code Retry} at once, not retried within the call.
 */
public final class WebhookLoadBalancerProvider implements LoadBalancerProvider {
  private static final Logger log = LoggerFactory.getLogger(WebhookLoadBalancerProvider.class);
  private static final ServiceLog serviceLog = ServiceLog.of(WebhookLoadBalancerProvider.class);
  // Operations a webhook may leave out: it answers them 404.
  private static final Set<String> OPTIONAL_OPERATIONS = Set.of("list", "verify");

  private final Vertx vertx;
  private final WebhookOptions options;
  private final HttpClient client;
  private final RequestFence fence;
  // Cluster name -> uid of its kube-system namespace, from initialize.
  private final Map<String, String> clusterUids = new ConcurrentHashMap<>();
  // False once the webhook answered /list with 404: it does not implement the optional call.
  private volatile boolean listSupported = true;
  // False once the webhook answered /verify with 404: verification then runs ensure.
  private volatile boolean verifySupported = true;

  public WebhookLoadBalancerProvider(Vertx vertx, WebhookOptions options) {
    this(vertx, options, RequestFence.OPEN);
  }

  /**
   * @param fence asked right before each request goes (retries and requests that waited for a
   *     connection included), for the term its call started in
   */
  public WebhookLoadBalancerProvider(Vertx vertx, WebhookOptions options, RequestFence fence) {
    if (options.getUrl().isEmpty()) {
      throw new IllegalArgumentException("the webhook URL is empty");
    }
    this.vertx = vertx;
    this.options = options;
    this.fence = fence;
    HttpClientOptions web =
        new HttpClientOptions()
            .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, options.getTimeout().toMillis()));
    if (!options.getCaPem().isEmpty()) {
      web.setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(options.getCaPem())));
    } else if (!options.getCaFile().isEmpty()) {
      web.setTrustOptions(new PemTrustOptions().addCertPath(options.getCaFile()));
    }
    if (!options.getCertFile().isEmpty()) {
      web.setKeyCertOptions(
          new PemKeyCertOptions()
              .setCertPath(options.getCertFile())
              .setKeyPath(options.getKeyFile()));
    }
    this.client = vertx.createHttpClient(web, ClientPools.of(options.getMaxConnections()));
  }

  @Override
  public String name() {
    return "webhook";
  }

  /** Remembers the cluster's uid: every request carries it as {@code clusterUid}. */
  @Override
  public Future<Void> initialize(ClusterIdentity cluster, List<LbService> services) {
    clusterUids.put(cluster.name(), cluster.uid());
    return Future.succeededFuture();
  }

  @Override
  public String loadBalancerName(String clusterName, LbService service) {
    return service.defaultLoadBalancerName();
  }

  @Override
  public Future<Optional<LbStatus>> getLoadBalancer(String clusterName, LbService service) {
    return call("get", clusterName, service, null, false)
        .map(
            body -> {
              if (!Boolean.TRUE.equals(body.exists())) {
                return Optional.<LbStatus>empty();
              }
              return Optional.of(parse(body.status(), "get"));
            });
  }

  @Override
  public Future<EnsureResult> ensureLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    return call("ensure", clusterName, service, nodes, true)
        .map(body -> ensureResult(body, "ensure"));
  }

  /**
   * {@code POST <url>/verify} with the ensure body; its answer is ensure's plus {@code repairs}. A
   * 404 means the webhook does not implement verify: this and every later verification run ensure
   * instead (the default of the SPI), which repairs too but cannot say what.
   */
  @Override
  public Future<VerifyResult> verifyLoadBalancer(
      String clusterName, LbService service, List<LbNode> nodes) {
    if (!verifySupported) {
      return LoadBalancerProvider.super.verifyLoadBalancer(clusterName, service, nodes);
    }
    return call("verify", clusterName, service, nodes, true)
        .map(body -> new VerifyResult(ensureResult(body, "verify"), body.repairs()))
        .recover(
            e -> {
              if (!(e instanceof NotImplemented)) {
                return Future.failedFuture(e);
              }
              if (verifySupported) {
                verifySupported = false;
                log.info(
                    "the webhook answers 404 to verify: it does not implement it; load balancers"
                        + " are verified with ensure from now on");
              }
              return LoadBalancerProvider.super.verifyLoadBalancer(clusterName, service, nodes);
            });
  }

  /** Whether verifications still call {@code /verify} (false after a 404). */
  boolean verifySupported() {
    return verifySupported;
  }

  private static EnsureResult ensureResult(Answer body, String op) {
    LbStatus status = parse(body.status(), op);
    if (status.isEmpty()) {
      throw new ProviderException.Retry(
          "webhook " + op + ": malformed answer: status.ingress is empty");
    }
    List<EnsureResult.Warning> warnings =
        body.warnings().stream()
            .map(
                w ->
                    new EnsureResult.Warning(
                        w.reason() == null ? "LoadBalancerWarning" : w.reason(),
                        w.message() == null ? "" : w.message()))
            .toList();
    return new EnsureResult(status, warnings);
  }

  @Override
  public Future<Void> updateLoadBalancerHosts(
      String clusterName, LbService service, List<LbNode> nodes) {
    return call("update-hosts", clusterName, service, nodes, true).mapEmpty();
  }

  @Override
  public Future<Void> ensureLoadBalancerDeleted(String clusterName, LbService service) {
    return call("delete", clusterName, service, null, false).mapEmpty();
  }

  /**
   * The optional {@code list} call: what the webhook holds for this cluster's uid, each with the
   * Service it was made for. Offered until the webhook answers {@code /list} with 404 (it does not
   * implement the call); that list answers empty, and from then on the provider offers nothing.
   * Deleting a listed load balancer is the ordinary {@code delete} call, with the Service's uid and
   * key from the listing.
   */
  @Override
  public Optional<OwnedLoadBalancers> ownedLoadBalancers() {
    if (!listSupported) {
      return Optional.empty();
    }
    return Optional.of(
        new OwnedLoadBalancers() {
          @Override
          public Future<List<OwnedLoadBalancer>> list(String clusterName) {
            return WebhookLoadBalancerProvider.this.list(clusterName);
          }

          @Override
          public Future<Void> delete(String clusterName, OwnedLoadBalancer lb) {
            return ensureLoadBalancerDeleted(clusterName, listed(clusterName, lb));
          }
        });
  }

  private Future<List<OwnedLoadBalancer>> list(String cluster) {
    if (!listSupported) {
      return Future.succeededFuture(List.of());
    }
    String clusterUid = clusterUids.get(cluster);
    if (clusterUid == null) {
      return Future.failedFuture(notInitialized(cluster));
    }
    Promise<WebhookJson.ListAnswer> done = Promise.promise();
    attempt(
        "list",
        null,
        new WebhookJson.ListRequest(cluster, clusterUid),
        WebhookJson.ListAnswer.class,
        false,
        fence.term(),
        0,
        done);
    return done.future()
        .map(
            answer ->
                answer.loadBalancers().stream()
                    .filter(l -> l != null && l.serviceUid() != null && !l.serviceUid().isEmpty())
                    .map(
                        l ->
                            new OwnedLoadBalancer(
                                l.id(),
                                l.name(),
                                l.serviceUid(),
                                l.serviceKey() != null && l.serviceKey().split("/", -1).length == 2
                                    ? cluster + "/" + l.serviceKey()
                                    : l.serviceKey()))
                    .toList())
        .recover(
            e -> {
              if (e instanceof NotImplemented) {
                listSupported = false;
                log.info(
                    "Cluster {}: the webhook does not implement list (404): no orphan sweep",
                    cluster);
                return Future.succeededFuture(List.of());
              }
              return Future.failedFuture(e);
            });
  }

  /** The Service a listed load balancer was made for, as the delete call describes it. */
  private static LbService listed(String cluster, OwnedLoadBalancer lb) {
    ServiceRef ref = lb.service(cluster);
    return new LbService(
        new ServiceKey(cluster, ref.namespace(), ref.name()),
        lb.serviceUid(),
        List.of(),
        null,
        "Cluster",
        0,
        "None",
        List.of(),
        Map.of(),
        List.of(),
        LbStatus.EMPTY);
  }

  @Override
  public Future<Void> close() {
    client.close();
    return Future.succeededFuture();
  }

  private static LbStatus parse(WebhookJson.Status status, String op) {
    try {
      return WebhookJson.parseStatus(status);
    } catch (RuntimeException e) {
      throw new ProviderException.Retry("webhook " + op + ": malformed answer: " + e.getMessage());
    }
  }

  private Future<Answer> call(
      String op, String cluster, LbService service, List<LbNode> nodes, boolean elsewhereAllowed) {
    String clusterUid = clusterUids.get(cluster);
    if (clusterUid == null) {
      return Future.failedFuture(notInitialized(cluster));
    }
    WebhookJson.Request body =
        WebhookJson.request(
            cluster, clusterUid, loadBalancerName(cluster, service), service, nodes);
    ServiceRef prefix = service.ref();
    Promise<Answer> done = Promise.promise();
    attempt(op, prefix, body, Answer.class, elsewhereAllowed, fence.term(), 0, done);
    return done.future();
  }

  private static ProviderException notInitialized(String cluster) {
    return new ProviderException.Retry(
        "cluster "
            + cluster
            + ": its identity (kube-system uid) is not known yet: the provider was not"
            + " initialized for it");
  }

  /** The webhook answered 404 to an optional operation ({@code list}, {@code verify}). */
  private static final class NotImplemented extends RuntimeException {
    NotImplemented(String op) {
      super("webhook " + op + ": 404: not implemented", null, false, false);
    }
  }

  /** A request the fence refused: the call ends with the fence's exception, never retried. */
  private static final class Refused extends RuntimeException {
    Refused(RuntimeException cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  private <T> void attempt(
      String op,
      ServiceRef prefix,
      Object body,
      Class<T> type,
      boolean elsewhereAllowed,
      long term,
      int attempt,
      Promise<T> done) {
    send(op, WebhookJson.encode(body), term)
        .onComplete(
            ar -> {
              Throwable failure;
              boolean transientFailure;
              if (ar.failed() && ar.cause() instanceof Refused refused) {
                done.fail(refused.getCause());
                return;
              }
              // Where the member's Secret points is refused: asking again changes nothing.
              if (ar.failed() && ar.cause() instanceof Egress.Refused refused) {
                done.fail(
                    new ProviderException.Retry(
                        "webhook " + op + ": " + refused.getMessage(), refused));
                return;
              }
              // The same webhook would send the same answer again: the Service's backoff retries.
              if (ar.failed() && ar.cause() instanceof AnswerLimit.Passed passed) {
                done.fail(new ProviderException.Retry(passed.getMessage(), passed));
                return;
              }
              if (ar.failed()) {
                failure =
                    new ProviderException.Retry(
                        "webhook " + op + ": " + ar.cause().getMessage(), ar.cause());
                transientFailure = true;
              } else {
                Reply r = ar.result();
                int status = r.statusCode();
                if (status >= 200 && status < 300) {
                  try {
                    done.complete(WebhookJson.decode(r.body(), type));
                  } catch (StreamReadException e) {
                    done.fail(
                        new ProviderException.Retry("webhook " + op + ": answer is not JSON"));
                  } catch (JacksonException e) {
                    done.fail(
                        new ProviderException.Retry(
                            "webhook " + op + ": malformed answer: " + e.getOriginalMessage()));
                  }
                  return;
                }
                if (status == 404 && OPTIONAL_OPERATIONS.contains(op)) {
                  done.fail(new NotImplemented(op));
                  return;
                }
                failure = error(op, r, elsewhereAllowed);
                transientFailure =
                    status >= 500 && !(failure instanceof ProviderException.RetryAfter);
              }
              if (transientFailure && attempt < options.getRetries()) {
                long delay =
                    ExponentialBackoff.delay(
                            options.getRetryDelay(),
                            options.getRetryDelay().multipliedBy(1L << 20),
                            attempt + 1)
                        .toMillis();
                if (prefix == null) {
                  log.debug(
                      "webhook {} failed ({}), retry {} in {} ms",
                      op,
                      failure.getMessage(),
                      attempt + 1,
                      delay);
                } else {
                  serviceLog.debug(
                      prefix,
                      "webhook {} failed ({}), retry {} in {} ms",
                      op,
                      failure.getMessage(),
                      attempt + 1,
                      delay);
                }
                vertx.setTimer(
                    Math.max(1, delay),
                    t ->
                        attempt(op, prefix, body, type, elsewhereAllowed, term, attempt + 1, done));
                return;
              }
              done.fail(failure);
            });
  }

  /** An answer read to its end. */
  private record Reply(int statusCode, String retryAfter, Buffer body) {}

  /**
   * One POST, bounded as a whole by {@code webhook.timeout}: waiting for a connection, sending, and
   * reading the answer to its end, which is read up to its limit ({@code /list}: the inventory
   * limit) and fails the call past it. An idle timeout alone would never end an answer that
   * trickles a byte now and then. At the timeout the request is reset, which closes its connection:
   * an abandoned call never keeps a connection that later calls wait for.
   */
  private Future<Reply> send(String op, Buffer payload, long term) {
    RuntimeException notNow = fence.refusal(term, "webhook " + op);
    if (notNow != null) {
      return Future.failedFuture(new Refused(notNow));
    }
    RequestOptions request =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(options.getUrl() + "/" + op)
            .putHeader("Content-Type", "application/json")
            .putHeader("User-Agent", "pier");
    if (!options.getToken().isEmpty()) {
      request.putHeader("Authorization", "Bearer " + options.getToken());
    }
    Promise<Reply> reply = Promise.promise();
    AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
    long timer =
        vertx.setTimer(
            Math.max(1, options.getTimeout().toMillis()),
            t -> {
              if (reply.tryFail(
                  new TimeoutException(
                      "no complete answer within " + options.getTimeout().toMillis() + " ms"))) {
                HttpClientRequest r = sent.get();
                if (r != null) {
                  r.reset();
                }
              }
            });
    options
        .getEgress()
        .vet(request)
        // The request's own chain stays as it was: no hop between its answer and its body.
        .compose(
            vetted ->
                client
                    .request(vetted)
                    .compose(
                        r -> {
                          sent.set(r);
                          if (reply.future().isComplete()) {
                            r.reset();
                            return Future.failedFuture("abandoned at the timeout");
                          }
                          // It may have waited for a connection while this process stopped leading.
                          RuntimeException refused = fence.refusal(term, "webhook " + op);
                          if (refused != null) {
                            r.reset();
                            return Future.failedFuture(new Refused(refused));
                          }
                          // The body is asked for in the callback that delivers the response: a
                          // body handler
                          // set one hop later can miss the end of a short answer (a 204) and wait
                          // forever.
                          AnswerLimit limit =
                              op.equals("list")
                                  ? options.getInventoryLimit()
                                  : options.getAnswerLimit();
                          return r.send(payload)
                              .compose(
                                  resp ->
                                      limit
                                          .read(resp, "webhook " + op)
                                          .map(
                                              b ->
                                                  new Reply(
                                                      resp.statusCode(),
                                                      resp.getHeader("Retry-After"),
                                                      b)));
                        }))
        .onComplete(
            ar -> {
              vertx.cancelTimer(timer);
              if (ar.succeeded()) {
                reply.tryComplete(ar.result());
              } else {
                reply.tryFail(ar.cause());
              }
            });
    return reply.future();
  }

  private static Throwable error(String op, Reply r, boolean elsewhereAllowed) {
    int status = r.statusCode();
    WebhookError error = null;
    try {
      error = WebhookJson.decode(r.body(), WebhookJson.ErrorAnswer.class).error();
    } catch (RuntimeException ignored) {
      // not JSON: the status alone decides
    }
    if (error == null) {
      error = new WebhookError(null, null, null, null);
    }
    String kind = error.kind() == null ? "" : error.kind();
    String message =
        "webhook " + op + ": " + status + (error.message() != null ? ": " + error.message() : "");
    Duration retryAfter = retryAfter(r.retryAfter());
    if ((status == 429 || status == 503) && retryAfter != null) {
      return new ProviderException.RetryAfter(message, retryAfter);
    }
    if (status == 429) {
      return new ProviderException.RetryAfter(message, Duration.ofSeconds(1));
    }
    if (status == 422 || kind.equals("invalid_input")) {
      return new ProviderException.InvalidInput(
          error.field() == null ? "" : error.field(),
          error.value() == null ? "" : error.value(),
          message);
    }
    if (kind.equals("implemented_elsewhere")) {
      return elsewhereAllowed
          ? new ProviderException.ImplementedElsewhere(message)
          : new ProviderException.Retry(message + " (not allowed on " + op + ")");
    }
    return new ProviderException.Retry(message);
  }

  /** Retry-After as delta seconds; HTTP dates are not used by this contract. */
  static Duration retryAfter(String header) {
    if (header == null) {
      return null;
    }
    try {
      long s = Long.parseLong(header.trim());
      return s < 0 ? null : Duration.ofSeconds(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
