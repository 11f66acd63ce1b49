package dev.pier.federation.members;

import dev.pier.events.EventSink;
import dev.pier.events.ObjectRef;
import dev.pier.federation.FederationKeys;
import dev.pier.kube.Cluster;
import dev.pier.kube.Informers;
import dev.pier.kube.MemberKubeconfig;
import dev.pier.kube.RbacFiles;
import dev.pier.model.ClusterSpec;
import dev.pier.model.FederationRole;
import dev.pier.model.KubeCredentials;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
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
 * inline client certificate, nothing else), adds a member; deleting it removes the member. Region
 * and zones come from the annotations {@code pier.dev/region} and {@code pier.dev/zones}
 * (comma-separated), placement labels from the Secret's other labels. A bad Secret gets a Warning
 * Event naming the field, never quoting a credential, and a member whose Secret turns bad stays
 * connected as before.
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
  // Which member each Secret added, by Secret name.
  private final Map<String, String> memberBySecret = new HashMap<>();
  private SharedIndexInformer<Secret> informer;

  public MemberSecrets(Cluster host, String namespace, Members members) {
    this.host = host;
    this.namespace = namespace;
    this.members = members;
    this.events = host.events();
  }

  /** Starts watching; joins and leaves run on {@code ctx}. Completes after the first list. */
  public Future<Void> start(Context ctx) {
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
            ctx.runOnContext(v -> remove(s.getMetadata().getName()));
          }
        });
    return Informers.start(
        informer, host.name(), "member Secrets in " + namespace, RbacFiles.FEDERATION_HOST, ctx);
  }

  public void stop() {
    if (informer != null) {
      informer.stop();
    }
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
    String previous = memberBySecret.get(secretName);
    if (previous != null && !previous.equals(spec.name())) {
      remove(secretName);
    }
    String problem = members.join(spec);
    if (problem != null) {
      warn(secret, problem);
      return;
    }
    memberBySecret.put(secretName, spec.name());
  }

  private void remove(String secretName) {
    String member = memberBySecret.remove(secretName);
    if (member != null) {
      members.leave(member);
    }
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
