package dev.pier.cli;

import dev.pier.boot.MemberProviders;
import dev.pier.config.Durations;
import dev.pier.federation.CredentialExpiry;
import dev.pier.federation.members.MemberSecrets;
import dev.pier.model.FederationKeys;
import dev.pier.model.KubeCredentials;
import dev.pier.model.MemberProvider;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code pier join NAME}: makes a cluster a member. In the member it applies the packaged namespace
 * and federation RBAC and mints a token for {@code pier/pier-federation} through the TokenRequest
 * API; in the host it writes the Secret {@code member-NAME} that joins it; then it waits until Pier
 * reports the member ready on that Secret. A second run changes nothing and keeps the token.
 */
final class Join {
  static final String SERVICE_ACCOUNT = "pier-federation";
  static final String MEMBER_NAMESPACE = "pier";
  static final Duration DEFAULT_TOKEN_DURATION = Duration.ofHours(8760);
  static final Duration MIN_TOKEN_DURATION = Duration.ofMinutes(10);
  static final Duration DEFAULT_WAIT = Duration.ofMinutes(2);
  static final Set<String> VALUED =
      KubeTarget.flags(
          KubeTarget.HOST_FLAGS,
          KubeTarget.MEMBER_FLAGS,
          Set.of(
              "--region",
              "--zones",
              "--labels",
              "--token-duration",
              "--wait",
              "--load-balancer-provider",
              "--provider-token-file",
              "--provider-ca-file",
              "--namespaces"));
  static final Set<String> SWITCHES = Set.of("--dry-run", "--rotate-token", "--load-balancers");

  record Options(
      String name,
      String hostKubeconfig,
      String hostContext,
      String memberKubeconfig,
      String memberContext,
      String secretNamespace,
      String region,
      List<String> zones,
      Map<String, String> labels,
      Duration tokenDuration,
      Duration waitFor,
      boolean dryRun,
      boolean rotateToken,
      boolean loadBalancers,
      MemberProvider provider,
      List<String> namespaces) {

    /** Whether the member runs Pier's load balancers: the base role goes there too. */
    boolean withLoadBalancers() {
      return loadBalancers || provider != null;
    }

    static Options parse(List<String> args) {
      Flags f = Flags.parse(args, VALUED, SWITCHES);
      String name = f.name("cluster NAME");
      Duration token = f.duration("--token-duration", DEFAULT_TOKEN_DURATION);
      if (token.compareTo(MIN_TOKEN_DURATION) < 0) {
        throw CliException.usage(
            "flag --token-duration: invalid value '"
                + f.string("--token-duration", "")
                + "': the API server grants no token shorter than 10m");
      }
      Map<String, String> labels = f.keyValues("--labels");
      if (labels.containsKey(FederationKeys.CLUSTER_SECRET_LABEL)) {
        throw CliException.usage(
            "flag --labels: invalid value '"
                + f.string("--labels", "")
                + "': "
                + FederationKeys.CLUSTER_SECRET_LABEL
                + " is set from NAME");
      }
      List<String> region = f.labels("--region");
      if (region.size() > 1) {
        throw CliException.usage(
            "flag --region: invalid value '" + f.string("--region", "") + "': one region");
      }
      return new Options(
          name,
          f.string("--host-kubeconfig", ""),
          f.string("--host-context", ""),
          f.string("--member-kubeconfig", ""),
          f.string("--member-context", ""),
          Status.secretNamespace(f),
          region.isEmpty() ? "" : region.get(0),
          f.labels("--zones"),
          labels,
          token,
          f.duration("--wait", DEFAULT_WAIT),
          f.on("--dry-run"),
          f.on("--rotate-token"),
          f.on("--load-balancers"),
          provider(f),
          namespaces(f));
    }

    /** The namespaces of {@code federation.memberScope: namespaces}, lower-case DNS labels. */
    private static List<String> namespaces(Flags f) {
      List<String> namespaces = f.labels("--namespaces");
      for (String ns : namespaces) {
        if (!Flags.DNS_LABEL.matcher(ns).matches()) {
          throw CliException.usage(
              "flag --namespaces: invalid value '"
                  + f.string("--namespaces", "")
                  + "': '"
                  + ns
                  + "' is not a namespace name (lower case letters, digits, '-')");
        }
      }
      return namespaces;
    }

    /** The member's load-balancer provider from its three flags, checked as Pier checks it. */
    private static MemberProvider provider(Flags f) {
      String settings = f.string("--load-balancer-provider", "");
      if (settings.isEmpty()) {
        for (String flag : List.of("--provider-token-file", "--provider-ca-file")) {
          if (!f.string(flag, "").isEmpty()) {
            throw CliException.usage("flag " + flag + ": given without --load-balancer-provider");
          }
        }
        return null;
      }
      String token = read(f, "--provider-token-file").trim();
      String ca = read(f, "--provider-ca-file");
      MemberProvider provider;
      try {
        provider = MemberSecrets.provider(settings, token, ca);
      } catch (RuntimeException e) {
        throw CliException.usage("flag --load-balancer-provider: " + e.getMessage());
      }
      try {
        MemberProviders.check(provider);
        return provider;
      } catch (RuntimeException e) {
        boolean aboutCa = e.getMessage().startsWith("data." + MemberSecrets.PROVIDER_CA_KEY);
        throw CliException.usage(
            "flag "
                + (aboutCa ? "--provider-ca-file" : "--load-balancer-provider")
                + ": "
                + e.getMessage());
      }
    }

    /** The file a flag names, whole; empty when the flag is not given. */
    private static String read(Flags f, String flag) {
      String file = f.string(flag, "");
      if (file.isEmpty()) {
        return "";
      }
      try {
        return Files.readString(Path.of(file), StandardCharsets.UTF_8);
      } catch (IOException | RuntimeException e) {
        throw CliException.usage(
            "flag " + flag + ": cannot read '" + file + "': " + e.getMessage());
      }
    }
  }

  private final Options o;
  private final PrintStream out;

  Join(Options options, PrintStream out) {
    this.o = options;
    this.out = out;
  }

  static int run(List<String> args, PrintStream out) {
    return new Join(Options.parse(args), out).run();
  }

  static String secretName(String member) {
    return "member-" + member;
  }

  int run() {
    KubeTarget member = KubeTarget.of("member", o.memberKubeconfig(), o.memberContext());
    KubeTarget host = KubeTarget.of("host", o.hostKubeconfig(), o.hostContext());
    if (!member.server().startsWith("https://")) {
      throw CliException.usage(
          "flag --member-kubeconfig: the member's server '"
              + member.server()
              + "' is not https; Pier reaches members only over https");
    }
    String ca = member.caData();
    List<HasMetadata> manifests =
        o.namespaces().isEmpty()
            ? PackagedManifests.member(o.withLoadBalancers())
            : PackagedManifests.memberInNamespaces(o.namespaces(), o.withLoadBalancers());
    if (o.dryRun()) {
      dryRun(manifests, member, ca);
      return 0;
    }
    Instant expiry;
    boolean changed;
    try (KubernetesClient m = member.client();
        KubernetesClient h = host.client()) {
      for (HasMetadata manifest : manifests) {
        out.println(
            "member "
                + o.name()
                + ": "
                + Apply.describe(manifest)
                + " "
                + Apply.apply(m, manifest));
      }
      Secret existing = existingSecret(h);
      KubeCredentials had = existing == null ? null : credentials(existing);
      if (had != null && !had.server().equals(member.server())) {
        throw CliException.failed(
            "Secret "
                + o.secretNamespace()
                + "/"
                + secretName(o.name())
                + " joins cluster "
                + o.name()
                + " at "
                + had.server()
                + ", not "
                + member.server()
                + "; Pier never moves a member to another API server: run pier unjoin "
                + o.name()
                + " first");
      }
      String token;
      Instant oldExpiry = had == null ? null : CredentialExpiry.ofToken(had.token());
      if (!o.rotateToken() && had != null && usable(had)) {
        token = had.token();
        expiry = oldExpiry;
        out.println(
            "member "
                + o.name()
                + ": token kept"
                + (expiry == null ? "" : ", expires " + expiry)
                + " (--rotate-token mints a new one)");
      } else {
        TokenRequest granted = mint(m);
        token = granted.getStatus().getToken();
        expiry = Instant.parse(granted.getStatus().getExpirationTimestamp());
        out.println(
            "member "
                + o.name()
                + ": token minted for serviceaccount "
                + MEMBER_NAMESPACE
                + "/"
                + SERVICE_ACCOUNT
                + ", expires "
                + expiry
                + " (granted "
                + Durations.format(
                    Duration.between(Instant.now(), expiry)
                        .plusSeconds(30)
                        .truncatedTo(ChronoUnit.MINUTES))
                + ")");
      }
      Secret desired = desiredSecret(JoinKubeconfig.build(o.name(), member.server(), ca, token));
      changed = writeSecret(h, existing, desired);
      if (o.rotateToken() && had != null) {
        out.println(
            "member "
                + o.name()
                + ": token rotated; the old token stays valid until "
                + (oldExpiry == null ? "it expires" : oldExpiry.toString())
                + " (a token cannot be revoked; deleting serviceaccount "
                + MEMBER_NAMESPACE
                + "/"
                + SERVICE_ACCOUNT
                + " in the member ends every token at once)");
      }
      if (o.waitFor().isZero()) {
        return 0;
      }
      return Status.awaitReady(h, o.secretNamespace(), o.name(), expiry, changed, o.waitFor(), out);
    }
  }

  private void dryRun(List<HasMetadata> manifests, KubeTarget member, String ca) {
    out.println("# dry run: nothing is written. In the member (" + member.server() + "):");
    for (HasMetadata m : manifests) {
      out.print(Serialization.asYaml(m));
    }
    TokenRequest request = tokenRequest();
    out.println(
        "# POST /api/v1/namespaces/"
            + MEMBER_NAMESPACE
            + "/serviceaccounts/"
            + SERVICE_ACCOUNT
            + "/token (unless the host's Secret holds a token that is still valid):");
    out.print(Serialization.asYaml(request));
    out.println("# In the host:");
    Secret secret =
        desiredSecret(JoinKubeconfig.build(o.name(), member.server(), ca, "<the minted token>"));
    Map<String, String> data = secret.getData();
    secret.setData(null);
    Map<String, String> stringData = new TreeMap<>();
    data.forEach(
        (k, v) ->
            stringData.put(
                k,
                k.equals(MemberSecrets.PROVIDER_TOKEN_KEY)
                    ? "<the token of --provider-token-file>"
                    : new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    secret.setStringData(stringData);
    out.print(Serialization.asYaml(secret));
  }

  private TokenRequest tokenRequest() {
    return new TokenRequestBuilder()
        .withNewSpec()
        .withExpirationSeconds(o.tokenDuration().toSeconds())
        .endSpec()
        .build();
  }

  private TokenRequest mint(KubernetesClient member) {
    try {
      TokenRequest granted =
          member
              .serviceAccounts()
              .inNamespace(MEMBER_NAMESPACE)
              .withName(SERVICE_ACCOUNT)
              .tokenRequest(tokenRequest());
      if (granted == null
          || granted.getStatus() == null
          || granted.getStatus().getToken() == null
          || granted.getStatus().getExpirationTimestamp() == null) {
        throw CliException.failed("member " + o.name() + ": the TokenRequest returned no token");
      }
      return granted;
    } catch (KubernetesClientException e) {
      throw CliException.failed(
          "member "
              + o.name()
              + ": cannot mint a token for serviceaccount "
              + MEMBER_NAMESPACE
              + "/"
              + SERVICE_ACCOUNT
              + " (TokenRequest; the API server needs --service-account-issuer and"
              + " --service-account-signing-key-file): "
              + Apply.message(e));
    }
  }

  /** A kept token must still work for a while; one about to expire is replaced. */
  private static boolean usable(KubeCredentials c) {
    if (c.token().isEmpty()) {
      return false;
    }
    Instant exp = CredentialExpiry.ofToken(c.token());
    return exp == null || exp.isAfter(Instant.now().plus(MIN_TOKEN_DURATION));
  }

  private Secret existingSecret(KubernetesClient host) {
    try {
      for (Secret s :
          host.secrets()
              .inNamespace(o.secretNamespace())
              .withLabel(FederationKeys.CLUSTER_SECRET_LABEL, o.name())
              .list()
              .getItems()) {
        if (!s.getMetadata().getName().equals(secretName(o.name()))) {
          throw CliException.failed(
              "cluster "
                  + o.name()
                  + " is already joined by Secret "
                  + o.secretNamespace()
                  + "/"
                  + s.getMetadata().getName()
                  + ", which pier join did not write");
        }
      }
      return host.secrets().inNamespace(o.secretNamespace()).withName(secretName(o.name())).get();
    } catch (KubernetesClientException e) {
      throw CliException.failed(
          "host: cannot read Secrets in namespace "
              + o.secretNamespace()
              + ": "
              + Apply.message(e));
    }
  }

  private static KubeCredentials credentials(Secret s) {
    String kubeconfig = Status.data(s, "kubeconfig");
    return kubeconfig == null ? null : JoinKubeconfig.read(kubeconfig);
  }

  private Secret desiredSecret(String kubeconfig) {
    Map<String, String> labels = new TreeMap<>(o.labels());
    labels.put(FederationKeys.CLUSTER_SECRET_LABEL, o.name());
    Map<String, String> annotations = new TreeMap<>();
    if (!o.region().isEmpty()) {
      annotations.put("pier.dev/region", o.region());
    }
    if (!o.zones().isEmpty()) {
      annotations.put("pier.dev/zones", String.join(",", o.zones()));
    }
    Map<String, String> data = new TreeMap<>();
    data.put(
        MemberSecrets.KUBECONFIG_KEY,
        Base64.getEncoder().encodeToString(kubeconfig.getBytes(StandardCharsets.UTF_8)));
    if (o.provider() != null) {
      annotations.put(
          MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION,
          new JsonObject(new TreeMap<String, Object>(o.provider().settings())).encode());
      if (!o.provider().token().isEmpty()) {
        data.put(
            MemberSecrets.PROVIDER_TOKEN_KEY,
            Base64.getEncoder()
                .encodeToString(o.provider().token().getBytes(StandardCharsets.UTF_8)));
      }
      if (!o.provider().ca().isEmpty()) {
        data.put(
            MemberSecrets.PROVIDER_CA_KEY,
            Base64.getEncoder().encodeToString(o.provider().ca().getBytes(StandardCharsets.UTF_8)));
      }
    }
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace(o.secretNamespace())
        .withName(secretName(o.name()))
        .withLabels(labels)
        .withAnnotations(annotations.isEmpty() ? null : annotations)
        .endMetadata()
        .withType("Opaque")
        .withData(data)
        .build();
  }

  /** Creates the Secret, or patches what differs; returns whether anything was written. */
  private boolean writeSecret(KubernetesClient host, Secret existing, Secret desired) {
    String what =
        "host: secret/"
            + desired.getMetadata().getName()
            + " (namespace "
            + o.secretNamespace()
            + ")";
    try {
      if (existing == null) {
        host.resource(desired).create();
        out.println(what + " created");
        return true;
      }
      JsonObject metadata = new JsonObject();
      JsonObject labels = new JsonObject();
      Map<String, String> had = orEmpty(existing.getMetadata().getLabels());
      Map<String, String> want = desired.getMetadata().getLabels();
      had.keySet().stream().filter(k -> !want.containsKey(k)).forEach(k -> labels.putNull(k));
      want.forEach(
          (k, v) -> {
            if (!v.equals(had.get(k))) {
              labels.put(k, v);
            }
          });
      JsonObject annotations = new JsonObject();
      Map<String, String> hadA = orEmpty(existing.getMetadata().getAnnotations());
      Map<String, String> wantA = orEmpty(desired.getMetadata().getAnnotations());
      for (String k :
          List.of(
              "pier.dev/region",
              "pier.dev/zones",
              MemberSecrets.LOAD_BALANCER_PROVIDER_ANNOTATION)) {
        if (!Objects.equals(hadA.get(k), wantA.get(k))) {
          annotations.put(k, wantA.get(k));
        }
      }
      JsonObject patch = new JsonObject();
      if (!labels.isEmpty()) {
        metadata.put("labels", labels);
      }
      if (!annotations.isEmpty()) {
        metadata.put("annotations", annotations);
      }
      if (!metadata.isEmpty()) {
        patch.put("metadata", metadata);
      }
      JsonObject data = new JsonObject();
      for (String k :
          List.of(
              MemberSecrets.KUBECONFIG_KEY,
              MemberSecrets.PROVIDER_TOKEN_KEY,
              MemberSecrets.PROVIDER_CA_KEY)) {
        if (!Objects.equals(Status.data(existing, k), Status.data(desired, k))) {
          data.put(k, desired.getData().get(k));
        }
      }
      if (!data.isEmpty()) {
        patch.put("data", data);
      }
      if (patch.isEmpty()) {
        out.println(what + " unchanged");
        return false;
      }
      host.secrets()
          .inNamespace(o.secretNamespace())
          .withName(desired.getMetadata().getName())
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch.encode());
      out.println(what + " configured");
      return true;
    } catch (KubernetesClientException e) {
      throw CliException.failed("cannot write " + what.substring(6) + ": " + Apply.message(e));
    }
  }

  private static Map<String, String> orEmpty(Map<String, String> m) {
    return m == null ? new HashMap<>() : m;
  }
}
