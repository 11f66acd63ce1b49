package dev.pier.federation.members;

import dev.pier.config.Durations;
import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.federation.LeavePolicy;
import dev.pier.kube.Cluster;
import dev.pier.kube.Informers;
import dev.pier.kube.MemberKubeconfig;
import dev.pier.kube.RbacFiles;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationKeys;
import dev.pier.model.FederationRole;
import dev.pier.model.KubeCredentials;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  static final String INVALID_MEMBER_SECRET = "InvalidMemberSecret";
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private final Cluster host;
  private final String namespace;
  private final Members members;
  private final EventSink events;
  private final Duration leaveGrace;
  // Which member each Secret added, by Secret name.
  private final Map<String, String> memberBySecret = new HashMap<>();
  // Members whose Secret went, by member name: the timer that makes them leave after the grace.
  private final Map<String, Long> pendingLeaves = new HashMap<>();
  private SharedIndexInformer<Secret> informer;
  private Vertx vertx;

  /**
   * @param leaveGrace how long a member whose Secret went stays; a Secret for it that returns
   *     within the grace changes nothing
   */
  public MemberSecrets(Cluster host, String namespace, Members members, Duration leaveGrace) {
    this.host = host;
    this.namespace = namespace;
    this.members = members;
    this.events = host.events();
    this.leaveGrace = leaveGrace;
  }

  /** Starts watching; joins and leaves run on {@code ctx}. Completes after the first list. */
  public Future<Void> start(Context ctx) {
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
            ctx.runOnContext(v -> gone(s.getMetadata().getName(), annotations(s)));
          }
        });
    return Informers.start(
        informer, host.name(), "member Secrets in " + namespace, RbacFiles.FEDERATION_HOST, ctx);
  }

  public void stop() {
    if (informer != null) {
      informer.stop();
    }
    pendingLeaves.values().forEach(t -> vertx.cancelTimer(t));
    pendingLeaves.clear();
  }

  private void apply(Secret secret) {
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
      // Relabelled to another member: the old one goes as if its Secret had.
      gone(secretName, annotations(secret));
    }
    String problem = members.join(spec);
    if (problem != null) {
      warn(secret, problem);
      return;
    }
    memberBySecret.put(secretName, spec.name());
    Long pending = pendingLeaves.remove(spec.name());
    if (pending != null) {
      vertx.cancelTimer(pending);
      log.info(
          "Cluster {}: a Secret for it ({}/{}) is back within the leave grace; it stays",
          spec.name(),
          namespace,
          secretName);
    }
  }

  /** The Secret that joined a member went: the member leaves after the grace, unless it returns. */
  private void gone(String secretName, Map<String, String> lastAnnotations) {
    String member = memberBySecret.remove(secretName);
    if (member == null || memberBySecret.containsValue(member)) {
      return;
    }
    LeavePolicy policy = LeavePolicy.of(lastAnnotations);
    if (leaveGrace.isZero()) {
      members.leave(member, policy);
      return;
    }
    log.info(
        "Cluster {}: its Secret {}/{} is gone; it leaves the federation in {} ({} its copies)"
            + " unless a Secret for it returns",
        member,
        namespace,
        secretName,
        Durations.format(leaveGrace),
        policy == LeavePolicy.DELETE_COPIES ? "deleting" : "orphaning");
    long timer =
        vertx.setTimer(
            leaveGrace.toMillis(),
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

  private static Map<String, String> annotations(Secret s) {
    Map<String, String> a = s.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  private void warn(Secret secret, String problem) {
    log.warn("Secret {}/{}: {}", namespace, secret.getMetadata().getName(), problem);
    events.warning(
        new ObjectRef(
            "Secret",
            "v1",
            namespace,
            secret.getMetadata().getName(),
            secret.getMetadata().getUid()),
        INVALID_MEMBER_SECRET,
        problem);
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
        false,
        FederationRole.MEMBER,
        placementLabels);
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
