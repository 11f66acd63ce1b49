package dev.pier.federation.members;

import dev.pier.config.Durations;
import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.federation.CredentialExpiry;
import dev.pier.federation.CredentialWarning;
import dev.pier.federation.MemberStatus;
import dev.pier.kube.AsyncKubeApi;
import dev.pier.kube.KubeApiException;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.FederationKeys;
import dev.pier.nodes.Topology;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.Config;
import io.vertx.core.Context;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each Secret-joined member's state on its Secret ({@link
 * FederationKeys#MEMBER_STATUS_ANNOTATION}), from the health probes: a merge patch of that one
 * annotation, sent when the state changes and otherwise at most once per {@link
 * MemberStatus#REFRESH}, through the host's fenced API (a Pier that does not lead sends nothing).
 * What is shown is the Secret as cached, or what this process sent last when that is newer (the
 * cache lags behind a write); so a new leader takes over without rewriting what is already right.
 * From the same probes, every replica publishes the member's credential expiry as {@code
 * pier_member_credential_expiry_timestamp_seconds{cluster}} and warns about it on the Secret within
 * {@code federation.credentialExpiryWarning}. Runs on the federation's context.
 */
final class MemberStatusReporter {
  private static final Logger log = LoggerFactory.getLogger(MemberStatusReporter.class);

  private final AsyncKubeApi api;
  private final String namespace;
  private final Function<String, Secret> secretOf;
  private final Context ctx;
  private final Clock clock;
  private final Map<String, MemberStatus> sent = new HashMap<>();
  private final EventSink events;
  // How long before its expiry a credential is warned about: federation.credentialExpiryWarning.
  private final Duration expiryWarning;
  // Where each member's credential expiry is published as a gauge.
  private final PierMetrics metrics;
  // When each member was last warned about its credential's expiry.
  private final Map<String, Instant> warned = new HashMap<>();
  private final Set<String> writing = new HashSet<>();
  // The member's gitVersion, per connection: a member that reconnects is asked again.
  private final Map<Member, String> versions = new IdentityHashMap<>();
  private final Set<Member> askingVersion = new HashSet<>();
  private static final Pattern GIT_VERSION =
      Pattern.compile("v?[0-9]{1,4}\\.[0-9]{1,4}\\.[0-9]{1,4}([-+.][0-9A-Za-z.+-]{1,40})?");

  /**
   * @param secretOf the cached Secret that joined a member, by member name; null for a configured
   *     member, which has none
   */
  MemberStatusReporter(
      AsyncKubeApi api,
      String namespace,
      Function<String, Secret> secretOf,
      EventSink events,
      Duration expiryWarning,
      PierMetrics metrics,
      Context ctx,
      Clock clock) {
    this.api = api;
    this.events = events;
    this.expiryWarning = expiryWarning;
    this.metrics = metrics;
    this.namespace = namespace;
    this.secretOf = secretOf;
    this.ctx = ctx;
    this.clock = clock;
  }

  /** A probe of {@code m} ended; readiness is already applied. */
  void probed(Member m, boolean ok, String failure) {
    if (m.spec().credentials() == null) {
      // A member of the configuration file: no Secret to write on, only the gauge, from the
      // credential its client holds (a token, or a certificate given inline in the kubeconfig).
      Config c = m.cluster().client().getConfiguration();
      String token = c.getOauthToken() != null ? c.getOauthToken() : c.getAutoOAuthToken();
      metrics.setMemberCredentialExpiry(
          m.name(), CredentialExpiry.of(token, c.getClientCertData()));
      return;
    }
    Secret secret = secretOf.apply(m.name());
    if (secret == null || secret.getMetadata().getDeletionTimestamp() != null || m.leaving()) {
      left(m.name());
      return;
    }
    // The connection's credential, so also a new one after the Secret changed; gone when unknown.
    metrics.setMemberCredentialExpiry(m.name(), CredentialExpiry.of(m.spec().credentials()));
    if (ok && !versions.containsKey(m)) {
      // The first write of a reachable member carries its version: asked once per connection.
      askVersion(m, () -> probed(m, ok, failure));
      return;
    }
    if (writing.contains(m.name())) {
      return;
    }
    MemberStatus shown = shown(m.name(), secret);
    MemberStatus next = status(m, failure, shown);
    warnIfExpiring(m, secret, next);
    if (!MemberStatus.worthWriting(shown, next)) {
      return;
    }
    write(m.name(), secret.getMetadata().getName(), next);
  }

  /**
   * Forgets a member: its Secret went or is being deleted, it is leaving, or it left (then its
   * probes may have ended before any saw it leave). Its expiry gauge goes.
   */
  void left(String member) {
    versions.keySet().removeIf(m -> m.name().equals(member));
    sent.remove(member);
    warned.remove(member);
    metrics.setMemberCredentialExpiry(member, null);
  }

  /**
   * A credential that expires within {@code federation.credentialExpiryWarning} is a Warning on its
   * Secret.
   */
  private void warnIfExpiring(Member m, Secret secret, MemberStatus status) {
    Instant now = clock.instant();
    if (!CredentialWarning.due(
        status.credentialExpiry(), now, warned.get(m.name()), expiryWarning)) {
      return;
    }
    warned.put(m.name(), now);
    String when =
        status.credentialExpiry().isAfter(now)
            ? "expires at "
                + status.credentialExpiry()
                + ", in "
                + Durations.format(Duration.between(now, status.credentialExpiry()))
            : "expired at " + status.credentialExpiry();
    String message =
        "The "
            + status.credential()
            + " of member "
            + m.name()
            + " "
            + when
            + ": rotate it (pier join "
            + m.name()
            + " --rotate-token, or a new kubeconfig in this Secret); once expired the member is"
            + " unreachable, and members whose tokens were minted together expire together";
    log.warn("Secret {}/{}: {}", namespace, secret.getMetadata().getName(), message);
    events.warning(
        ObjectRef.secret(namespace, secret.getMetadata().getName(), secret.getMetadata().getUid()),
        EventReasons.MEMBER_CREDENTIAL_EXPIRING,
        message);
  }

  private MemberStatus shown(String member, Secret secret) {
    Map<String, String> annotations = secret.getMetadata().getAnnotations();
    MemberStatus cached =
        annotations == null
            ? null
            : MemberStatus.parse(annotations.get(FederationKeys.MEMBER_STATUS_ANNOTATION));
    MemberStatus mine = sent.get(member);
    if (mine == null) {
      return cached;
    }
    if (cached == null || cached.lastProbe() == null) {
      return mine;
    }
    return mine.lastProbe() != null && mine.lastProbe().isAfter(cached.lastProbe()) ? mine : cached;
  }

  private MemberStatus status(Member m, String failure, MemberStatus shown) {
    Instant now = clock.instant();
    boolean ready = m.ready();
    Instant since = shown != null && shown.ready() == ready ? shown.since() : now;
    Topology topology = m.topology();
    String reason = "";
    if (!ready) {
      reason =
          failure != null
              ? "probe failed: " + failure
              : "probes pass; waiting for federation.health.successThreshold";
    }
    return new MemberStatus(
        ready,
        since == null ? now : since,
        now,
        versions.getOrDefault(m, shown == null ? "" : shown.version()),
        topology.region(),
        topology.zones(),
        CredentialExpiry.kind(m.spec().credentials()),
        CredentialExpiry.of(m.spec().credentials()),
        reason);
  }

  private void write(String member, String secretName, MemberStatus status) {
    writing.add(member);
    JsonObject body =
        new JsonObject()
            .put(
                "metadata",
                new JsonObject()
                    .put(
                        "annotations",
                        new JsonObject()
                            .put(FederationKeys.MEMBER_STATUS_ANNOTATION, status.toJson())));
    api.patch(
            ctx,
            AsyncKubeApi.corePath(namespace, "secrets", secretName),
            AsyncKubeApi.MERGE_PATCH,
            body)
        .onComplete(
            ar -> {
              writing.remove(member);
              if (ar.succeeded()) {
                sent.put(member, status);
              } else if (!(ar.cause() instanceof KubeApiException)) {
                // Refused before it went (this Pier does not lead), or never answered.
                log.debug(
                    "Cluster {}: status not written on Secret {}/{}: {}",
                    member,
                    namespace,
                    secretName,
                    ar.cause().getMessage());
              } else if (!((KubeApiException) ar.cause()).isNotFound()) {
                log.warn(
                    "Cluster {}: cannot write its status on Secret {}/{}: {}",
                    member,
                    namespace,
                    secretName,
                    ar.cause().getMessage());
              }
            });
  }

  private void askVersion(Member m, Runnable then) {
    if (!askingVersion.add(m)) {
      return;
    }
    versions.keySet().removeIf(old -> old.name().equals(m.name()));
    m.cluster()
        .api()
        .getLimited(ctx, "/version", AsyncKubeApi.REQUEST_TIMEOUT, ProbeReasons.MAX_ANSWER_BYTES)
        .onComplete(
            ar -> {
              askingVersion.remove(m);
              String version = ar.succeeded() ? gitVersion(ar.result()) : "";
              versions.put(m, version);
              if (version.isEmpty()) {
                log.debug(
                    "Cluster {}: cannot read its version: {}",
                    m.name(),
                    ar.succeeded()
                        ? "no gitVersion in the answer (HTTP " + ar.result().code() + ")"
                        : ProbeReasons.ofFailure(ar.cause(), AsyncKubeApi.REQUEST_TIMEOUT));
              }
              then.run();
            });
  }

  /**
   * The {@code gitVersion} of a {@code /version} answer when it looks like one ({@code v1.37.2},
   * {@code v1.31.4+k3s1}), else empty: the answer comes from a server a member Secret names, and
   * what it says is written onto the Secret.
   */
  static String gitVersion(AsyncKubeApi.LimitedAnswer answer) {
    if (answer.code() < 200 || answer.code() > 299 || answer.tooLong()) {
      return "";
    }
    try {
      String v = new JsonObject(answer.body()).getString("gitVersion");
      return v != null && GIT_VERSION.matcher(v).matches() ? v : "";
    } catch (RuntimeException e) {
      return "";
    }
  }
}
