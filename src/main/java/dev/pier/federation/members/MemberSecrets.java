package dev.pier.federation.members;

import dev.pier.events.EventReasons;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.federation.FederationOptions;
import dev.pier.federation.LeavePolicy;
import dev.pier.federation.LeaveRecord;
import dev.pier.kube.Cluster;
import dev.pier.kube.Informers;
import dev.pier.kube.KubeApiException;
import dev.pier.kube.MemberKubeconfig;
import dev.pier.kube.RbacFiles;
import dev.pier.kube.SecretWriter;
import dev.pier.metrics.PierMetrics;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationKeys;
import dev.pier.model.FederationRole;
import dev.pier.model.KubeCredentials;
import dev.pier.model.MemberProvider;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Members that join and leave at runtime: a Secret in the host's {@code federation.secretNamespace}
 * labelled {@code pier.dev/cluster=<member name>}, with a self-contained kubeconfig under the key
 * {@code kubeconfig} (checked by {@link MemberKubeconfig}: an https server, inline CA, a token or
 * inline client certificate, nothing else), adds a member; deleting or unlabelling it makes the
 * member leave after the leave grace, orphaning its copies unless the Secret said {@code
 * pier.dev/leave-policy: delete-copies}, and a Secret for it that returns within the grace changes
 * nothing. Region and zones come from the annotations {@code pier.dev/region} and {@code
 * pier.dev/zones} (comma-separated), placement labels from the Secret's other labels. A bad Secret
 * gets a Warning Event naming the field, never quoting a credential, and a member whose Secret
 * turns bad stays connected as before.
 */
public final class MemberSecrets {
  private static final Logger log = LoggerFactory.getLogger(MemberSecrets.class);
  public static final String KUBECONFIG_KEY = "kubeconfig";
  public static final String REGION_ANNOTATION = "pier.dev/region";
  public static final String ZONES_ANNOTATION = "pier.dev/zones";
  public static final String CONTEXT_ANNOTATION = "pier.dev/context";

  /**
   * The provider a member runs Pier's load balancers with: a JSON object of option paths to values
   * ({@code {"provider": "hetzner", "hetzner.location": "fsn1"}}); absent: the member's load
   * balancers are not Pier's.
   */
  public static final String LOAD_BALANCER_PROVIDER_ANNOTATION = "pier.dev/load-balancer-provider";

  /** The key of that provider's API token in the member Secret. */
  public static final String PROVIDER_TOKEN_KEY = "provider-token";

  /** The key of the PEM CA certificates that provider's HTTPS endpoint is checked against. */
  public static final String PROVIDER_CA_KEY = "provider-ca";

  static final String INVALID_MEMBER_SECRET = "InvalidMemberSecret";
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private final Cluster host;
  private final String namespace;
  private final Members members;
  private final EventSink events;
  private final Duration leaveGrace;
  private final Duration expiryWarning;
  private final PierMetrics metrics;
  private MemberStatusReporter status;
  // Which member each Secret added, by Secret name.
  private final Map<String, String> memberBySecret = new HashMap<>();
  // Members whose Secret went, by member name: the timer that makes them leave after the grace.
  private final Map<String, Long> pendingLeaves = new HashMap<>();
  private SharedIndexInformer<Secret> informer;
  private SharedIndexInformer<Secret> records;
  private Vertx vertx;
  private Context ctx;
  private final SecretWriter writer;

  /**
   * Reads the member Secrets in {@link FederationOptions#secretNamespace()}; a member whose Secret
   * went stays for {@link FederationOptions#leaveGrace()} (a Secret for it that returns within the
   * grace changes nothing), and one whose credential expires within {@link
   * FederationOptions#credentialExpiryWarning()} is warned about; {@code metrics} publishes each
   * member's credential expiry.
   */
  public MemberSecrets(
      Cluster host, Members members, FederationOptions options, PierMetrics metrics) {
    this.host = host;
    this.metrics = metrics;
    this.namespace = options.secretNamespace();
    this.members = members;
    this.events = host.events();
    this.leaveGrace = options.leaveGrace();
    this.expiryWarning = options.credentialExpiryWarning();
    this.writer = new SecretWriter(host.federationApi(), namespace);
  }

  /** Starts watching; joins and leaves run on {@code ctx}. Completes after the first list. */
  public Future<Void> start(Context ctx) {
    this.ctx = ctx;
    vertx = ctx.owner();
    informer =
        host.client()
            .secrets()
            .inNamespace(namespace)
            .withLabel(FederationKeys.CLUSTER_SECRET_LABEL)
            .runnableInformer(0);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Secret s) {
            ctx.runOnContext(v -> apply(s));
          }

          @Override
          public void onUpdate(Secret o, Secret s) {
            ctx.runOnContext(v -> apply(s));
          }

          @Override
          public void onDelete(Secret s, boolean finalStateUnknown) {
            // Deleted, or unlabelled (it left the label selector): the member leaves after the
            // grace, as the Secret's last state said.
            ctx.runOnContext(v -> gone(s));
          }
        });
    records =
        host.client()
            .secrets()
            .inNamespace(namespace)
            .withLabel(FederationKeys.LEAVING_LABEL)
            .runnableInformer(0);
    records.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Secret s) {
            ctx.runOnContext(v -> resume(s));
          }

          @Override
          public void onUpdate(Secret o, Secret s) {}

          @Override
          public void onDelete(Secret s, boolean finalStateUnknown) {}
        });
    status =
        new MemberStatusReporter(
            host.federationApi(),
            namespace,
            this::secretOf,
            events,
            expiryWarning,
            metrics,
            ctx,
            Clock.systemUTC());
    members.observeProbes(status::probed);
    // The records are read once the member Secrets are: a member whose Secret is back is known.
    return Informers.start(
            informer, host.name(), "member Secrets in " + namespace, RbacFiles.FEDERATION_HOST, ctx)
        .compose(
            v ->
                Informers.start(
                    records,
                    host.name(),
                    "leave records in " + namespace,
                    RbacFiles.FEDERATION_HOST,
                    ctx));
  }

  public void stop() {
    if (informer != null) {
      informer.stop();
    }
    if (records != null) {
      records.stop();
    }
    pendingLeaves.values().forEach(t -> vertx.cancelTimer(t));
    pendingLeaves.clear();
  }

  private void apply(Secret secret) {
    if (secret.getMetadata().getDeletionTimestamp() != null) {
      terminating(secret);
      return;
    }
    String secretName = secret.getMetadata().getName();
    ClusterSpec spec;
    try {
      spec = spec(secret);
    } catch (IllegalArgumentException e) {
      // A bad edit never disconnects a member: it stays on its last good connection, and only
      // deleting the Secret makes it leave.
      String member = memberBySecret.get(secretName);
      warn(
          secret,
          member == null
              ? e.getMessage()
              : e.getMessage()
                  + "; cluster "
                  + member
                  + " stays connected as its last valid Secret said");
      return;
    }
    String leavePolicyProblem = LeavePolicy.problem(secret.getMetadata().getAnnotations());
    if (leavePolicyProblem != null) {
      warn(secret, leavePolicyProblem);
    }
    String previous = memberBySecret.get(secretName);
    if (previous != null && !previous.equals(spec.name())) {
      // Relabelled to another member: the old one goes as if its Secret had. The Secret now
      // holds the other member's credentials, so this leave is kept in memory only.
      memberBySecret.remove(secretName);
      if (!memberBySecret.containsValue(previous)) {
        startLeave(secret, previous, false);
      }
    }
    Member before = members.get(spec.name());
    String problem = members.join(spec);
    if (problem != null) {
      warn(secret, problem);
      return;
    }
    Member joined = members.get(spec.name());
    if (joined != null && joined != before) {
      warnLowered(secret, spec);
      warnIfRefusedAsResolved(secret, spec);
    }
    memberBySecret.put(secretName, spec.name());
    holdUntilLeft(secret);
    Long pending = pendingLeaves.remove(spec.name());
    if (pending != null) {
      vertx.cancelTimer(pending);
      log.info(
          "Cluster {}: a Secret for it ({}/{}) is back within the leave grace; it stays",
          spec.name(),
          namespace,
          secretName);
      dropRecord(spec.name());
    }
  }

  /**
   * A member Secret being deleted, held by Pier's finalizer: its member leaves as if the Secret had
   * gone then. After a restart the member is joined first, with the Secret's credentials, so that
   * the leave is carried out with them.
   */
  private void terminating(Secret secret) {
    String secretName = secret.getMetadata().getName();
    if (!memberBySecret.containsKey(secretName)) {
      ClusterSpec spec;
      try {
        spec = spec(secret);
      } catch (IllegalArgumentException e) {
        releaseIfHeld(secret);
        return;
      }
      if (!pendingLeaves.containsKey(spec.name()) && members.get(spec.name()) == null) {
        if (members.join(spec) != null) {
          releaseIfHeld(secret);
          return;
        }
      }
      memberBySecret.put(secretName, spec.name());
    }
    gone(secret);
  }

  /**
   * A leave recorded before a restart: the member joins with the record's credentials, as it was,
   * and leaves when the record says. A record whose member has a Secret again is dropped.
   */
  private void resume(Secret record) {
    String member = LeaveRecord.member(record);
    if (member == null || pendingLeaves.containsKey(member)) {
      return;
    }
    if (memberBySecret.containsValue(member)) {
      dropRecord(member);
      return;
    }
    ClusterSpec spec;
    try {
      spec = spec(LeaveRecord.asMemberSecret(record));
    } catch (IllegalArgumentException e) {
      log.warn("Leave record {}/{}: {}", namespace, record.getMetadata().getName(), e.getMessage());
      return;
    }
    if (members.get(member) == null && members.join(spec) != null) {
      return;
    }
    Instant at = LeaveRecord.leaveAt(record);
    // A time Pier cannot read restarts the grace: a leave is never hastened.
    schedule(
        member,
        at == null ? Instant.now().plus(leaveGrace) : at,
        LeavePolicy.of(annotations(record)));
  }

  /**
   * The Secret that joined a member went (deleted, being deleted or unlabelled): the member leaves
   * after the grace, unless a Secret for it returns. The leave is recorded before Pier's finalizer
   * lets the Secret go, so that a restart carries it out too.
   */
  private void gone(Secret last) {
    String secretName = last.getMetadata().getName();
    String member = memberBySecret.remove(secretName);
    if (member == null || memberBySecret.containsValue(member)) {
      releaseIfHeld(last);
      return;
    }
    startLeave(last, member, true);
  }

  /**
   * @param recorded whether to record the leave from {@code last} and then let the Secret go
   */
  private void startLeave(Secret last, String member, boolean recorded) {
    String secretName = last.getMetadata().getName();
    LeavePolicy policy = LeavePolicy.of(annotations(last));
    Instant since =
        last.getMetadata().getDeletionTimestamp() == null
            ? Instant.now()
            : Instant.parse(last.getMetadata().getDeletionTimestamp());
    // pier unjoin --now: the operator chose to skip the grace, on the Secret itself.
    boolean now = "true".equals(annotations(last).get(FederationKeys.LEAVE_NOW_ANNOTATION));
    Instant at = now ? since : since.plus(leaveGrace);
    log.info(
        "Cluster {}: its Secret {}/{} is gone; it leaves the federation at {} ({} its copies)"
            + " unless a Secret for it returns",
        member,
        namespace,
        secretName,
        at,
        policy == LeavePolicy.DELETE_COPIES ? "deleting" : "orphaning");
    schedule(member, at, policy);
    if (recorded) {
      record(last, member, at).onSuccess(v -> releaseIfHeld(last));
    }
  }

  private void schedule(String member, Instant at, LeavePolicy policy) {
    long delay = Math.max(1, at.toEpochMilli() - System.currentTimeMillis());
    long timer =
        vertx.setTimer(
            delay,
            id -> {
              pendingLeaves.remove(member);
              if (!memberBySecret.containsValue(member)) {
                members.leave(member, policy);
              }
            });
    Long before = pendingLeaves.put(member, timer);
    if (before != null) {
      vertx.cancelTimer(before);
    }
  }

  /** The member left and was forgotten: its leave record and its status go. */
  public void left(String member) {
    if (status != null) {
      status.left(member);
    }
    if (!memberBySecret.containsValue(member)) {
      dropRecord(member);
    }
  }

  /** Writes the leave record; an existing one (a leave recorded before) gets this one's content. */
  private Future<Void> record(Secret last, String member, Instant at) {
    Secret rec = LeaveRecord.of(last, member, at);
    rec.getMetadata().setNamespace(namespace);
    return writer
        .write(ctx, rec)
        .onFailure(
            e ->
                log.warn(
                    "Cluster {}: cannot record its leave in Secret {}/{} ({}); its member Secret"
                        + " is held by Pier's finalizer until it can",
                    member,
                    namespace,
                    rec.getMetadata().getName(),
                    e.getMessage()));
  }

  private void dropRecord(String member) {
    writer
        .delete(ctx, LeaveRecord.name(member))
        .onFailure(
            e ->
                log.warn(
                    "Cluster {}: cannot delete its leave record {}/{}: {}",
                    member,
                    namespace,
                    LeaveRecord.name(member),
                    e.getMessage()));
  }

  /** Puts Pier's finalizer on a member Secret that joined, so that its deletion waits for Pier. */
  private void holdUntilLeft(Secret secret) {
    writer
        .addFinalizer(ctx, secret, FederationKeys.MEMBER_SECRET_FINALIZER)
        .onFailure(
            e -> {
              // A conflict means a newer version, whose event comes back here.
              if (!(e instanceof KubeApiException k && (k.isConflict() || k.isNotFound()))) {
                log.warn(
                    "Secret {}/{}: cannot add finalizer {}: {}",
                    namespace,
                    secret.getMetadata().getName(),
                    FederationKeys.MEMBER_SECRET_FINALIZER,
                    e.getMessage());
              }
            });
  }

  /**
   * Removes Pier's finalizer from a Secret that no longer joins a member, when its last state
   * carries it: a Secret whose deletion has completed needs nothing.
   */
  private void releaseIfHeld(Secret last) {
    List<String> finalizers = last.getMetadata().getFinalizers();
    if (finalizers != null && finalizers.contains(FederationKeys.MEMBER_SECRET_FINALIZER)) {
      release(last.getMetadata().getName());
    }
  }

  private void release(String secretName) {
    writer
        .removeFinalizer(ctx, secretName, FederationKeys.MEMBER_SECRET_FINALIZER)
        .onFailure(
            e ->
                log.warn(
                    "Secret {}/{}: cannot remove finalizer {}: {}",
                    namespace,
                    secretName,
                    FederationKeys.MEMBER_SECRET_FINALIZER,
                    e.getMessage()));
  }

  /** The cached Secret that joined {@code member}, or null. */
  private Secret secretOf(String member) {
    for (Map.Entry<String, String> e : memberBySecret.entrySet()) {
      if (e.getValue().equals(member)) {
        return informer.getStore().getByKey(namespace + "/" + e.getKey());
      }
    }
    return null;
  }

  private static Map<String, String> annotations(Secret s) {
    Map<String, String> a = s.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  private void warn(Secret secret, String problem) {
    log.warn("Secret {}/{}: {}", namespace, secret.getMetadata().getName(), problem);
    events.warning(
        ObjectRef.secret(namespace, secret.getMetadata().getName(), secret.getMetadata().getUid()),
        INVALID_MEMBER_SECRET,
        problem);
  }

  /**
   * A Secret whose provider endpoint is a host name that resolves to addresses the egress rule
   * refuses: checked once per connection, as {@link #warnLowered}. Its requests are refused anyway.
   */
  private void warnIfRefusedAsResolved(Secret secret, ClusterSpec spec) {
    members
        .refusedAsResolved(spec)
        .onSuccess(
            why -> {
              if (why != null) {
                ctx.runOnContext(v -> warn(secret, "cluster " + spec.name() + ": " + why));
              }
            });
  }

  /**
   * A Secret that joined a member (or reconnected it) whose provider settings were lowered to
   * Pier's ceilings for members: once per connection, not per update of the Secret.
   */
  private void warnLowered(Secret secret, ClusterSpec spec) {
    List<String> lowered = members.lowered(spec);
    if (lowered.isEmpty()) {
      return;
    }
    String message =
        "cluster "
            + spec.name()
            + ": annotation "
            + LOAD_BALANCER_PROVIDER_ANNOTATION
            + ": lowered to Pier's ceilings for members: "
            + String.join(", ", lowered);
    log.warn("Secret {}/{}: {}", namespace, secret.getMetadata().getName(), message);
    events.warning(
        ObjectRef.secret(namespace, secret.getMetadata().getName(), secret.getMetadata().getUid()),
        EventReasons.MEMBER_SETTING_LOWERED,
        message);
  }

  /** The member a Secret describes; IllegalArgumentException naming the bad field and value. */
  static ClusterSpec spec(Secret secret) {
    Map<String, String> labels =
        secret.getMetadata().getLabels() == null ? Map.of() : secret.getMetadata().getLabels();
    String name = labels.getOrDefault(FederationKeys.CLUSTER_SECRET_LABEL, "");
    if (name.length() > 63 || !DNS_LABEL.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "label "
              + FederationKeys.CLUSTER_SECRET_LABEL
              + ": invalid value '"
              + name
              + "': must be a DNS label (lower case letters, digits, '-')");
    }
    String kubeconfig = data(secret, KUBECONFIG_KEY);
    if (kubeconfig == null || kubeconfig.isBlank()) {
      throw new IllegalArgumentException(
          "data." + KUBECONFIG_KEY + ": missing; it must hold a self-contained kubeconfig");
    }
    Map<String, String> annotations =
        secret.getMetadata().getAnnotations() == null
            ? Map.of()
            : secret.getMetadata().getAnnotations();
    Map<String, String> placementLabels = new HashMap<>(labels);
    placementLabels.remove(FederationKeys.CLUSTER_SECRET_LABEL);
    String zones = annotations.getOrDefault(ZONES_ANNOTATION, "");
    String context = annotations.getOrDefault(CONTEXT_ANNOTATION, "");
    KubeCredentials credentials;
    try {
      credentials = MemberKubeconfig.parse(kubeconfig, context);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("data." + KUBECONFIG_KEY + ": " + e.getMessage());
    }
    MemberProvider provider = provider(secret, annotations);
    return new ClusterSpec(
        name,
        "",
        credentials,
        context,
        false,
        annotations.getOrDefault(REGION_ANNOTATION, "").trim(),
        zones.isBlank()
            ? List.of()
            : Arrays.stream(zones.split(",")).map(String::trim).filter(z -> !z.isEmpty()).toList(),
        provider != null,
        FederationRole.MEMBER,
        placementLabels,
        provider);
  }

  /** The load-balancer provider the Secret names, or null; which settings it may hold is boot's. */
  private static MemberProvider provider(Secret secret, Map<String, String> annotations) {
    String raw = annotations.get(LOAD_BALANCER_PROVIDER_ANNOTATION);
    String token = data(secret, PROVIDER_TOKEN_KEY);
    String ca = data(secret, PROVIDER_CA_KEY);
    if (raw == null) {
      for (String key :
          new String[] {
            token == null ? null : PROVIDER_TOKEN_KEY, ca == null ? null : PROVIDER_CA_KEY
          }) {
        if (key != null) {
          throw new IllegalArgumentException(
              "data."
                  + key
                  + ": set without the annotation "
                  + LOAD_BALANCER_PROVIDER_ANNOTATION
                  + " that names its provider");
        }
      }
      return null;
    }
    try {
      MemberProvider named = provider(raw, token == null ? "" : token);
      return new MemberProvider(named.settings(), named.token(), ca == null ? "" : ca.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "annotation " + LOAD_BALANCER_PROVIDER_ANNOTATION + ": " + e.getMessage());
    }
  }

  /**
   * A provider from the value of {@code pier.dev/load-balancer-provider} and a token (what {@code
   * pier join} writes is checked by the same rule).
   *
   * @throws IllegalArgumentException naming what is wrong, never quoting the token
   */
  public static MemberProvider provider(String settingsJson, String token) {
    return provider(settingsJson, token, "");
  }

  /**
   * As {@link #provider(String, String)}, with the PEM certificates the provider's endpoint is
   * checked against ({@code provider-ca}; empty: the JVM's).
   */
  public static MemberProvider provider(String settingsJson, String token, String ca) {
    JsonObject json;
    try {
      json = new JsonObject(settingsJson);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "not a JSON object of option paths to values, such as {\"provider\": \"hetzner\"}");
    }
    Map<String, String> settings = new TreeMap<>();
    for (String key : json.fieldNames()) {
      Object value = json.getValue(key);
      if (!(value instanceof String || value instanceof Number || value instanceof Boolean)) {
        throw new IllegalArgumentException(
            "the value of '" + key + "' must be a string, a number or a boolean");
      }
      settings.put(key, value.toString());
    }
    if (!settings.containsKey("provider")) {
      throw new IllegalArgumentException("names no provider (the key 'provider')");
    }
    return new MemberProvider(settings, token.trim(), ca);
  }

  private static String data(Secret secret, String key) {
    if (secret.getStringData() != null && secret.getStringData().containsKey(key)) {
      return secret.getStringData().get(key);
    }
    String b64 = secret.getData() == null ? null : secret.getData().get(key);
    if (b64 == null) {
      return null;
    }
    try {
      return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("data." + key + ": not base64");
    }
  }
}
