package dev.pier.testkit;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real etcd and kube-apiserver on free loopback ports, for integration tests: by default the
 * current release ({@link #KUBERNETES_VERSION}), or whichever build {@code $PIER_KUBE_BIN_DIR}
 * names (the compatibility run points it at the oldest supported release and sets the system
 * property {@code pier.kube.version}).
 *
 * <p>Everything lives in a fresh temporary directory: the etcd data, the service-account key pair,
 * the token file, the apiserver's self-signed serving certificate, the kubeconfig files and the two
 * processes' logs ({@code etcd.log}, {@code kube-apiserver.log}). The directory is deleted on
 * {@link #close()} unless the start failed or {@link #keepDirectoryOnClose()} was called.
 *
 * <p>The binaries come from {@code $PIER_KUBE_BIN_DIR}, else from {@code
 * ${XDG_CACHE_HOME:-$HOME/.cache}/pier/kubernetes-1.37.2-gomod1/bin}, where {@code
 * scripts/provision.sh} puts them. No controller-manager, scheduler or kubelet runs: see {@link
 * #createReadyNode}.
 *
 * <pre>{@code
 * try (KubeApiServer kube = KubeApiServer.builder().withUser("t0k3n", "pier", "pier-group").start()) {
 *   String ns = kube.createNamespace("demo");
 *   kube.client().services().inNamespace(ns).resource(service).create();
 * }
 * }</pre>
 */
public final class KubeApiServer implements AutoCloseable {

  /** The current Kubernetes release that {@code scripts/provision.sh} builds and caches. */
  public static final String KUBERNETES_VERSION = "1.37.2";

  /** The oldest release Pier supports; the tests tagged {@code compat} run against it too. */
  public static final String OLDEST_KUBERNETES_VERSION = "1.35.4";

  /** The cached build's name, as scripts/lib/kube-build.sh has it (KubeBuildTest checks that). */
  public static final String BUILD_ID = KUBERNETES_VERSION + "-gomod1";

  private static final Logger LOG = LoggerFactory.getLogger(KubeApiServer.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);
  private static final int START_ATTEMPTS = 3;

  private final Path dir;
  private final Path binDir;
  private final String adminToken;
  private final int port;
  private final Path kubeconfig;
  private final Path auditLog;
  private final List<Process> processes;
  private final List<String> apiServerCommand;
  private final Path apiServerLog;
  private final Thread shutdownHook;
  private final AtomicInteger kubeconfigCounter = new AtomicInteger();
  private KubernetesClient client;
  private volatile boolean keepDirectory;
  private volatile boolean frozen;
  private boolean closed;

  private KubeApiServer(
      Path dir,
      Path binDir,
      String adminToken,
      int port,
      Path kubeconfig,
      Path auditLog,
      List<Process> processes,
      List<String> apiServerCommand,
      Path apiServerLog) {
    this.dir = dir;
    this.binDir = binDir;
    this.adminToken = adminToken;
    this.port = port;
    this.kubeconfig = kubeconfig;
    this.auditLog = auditLog;
    this.processes = processes;
    this.apiServerCommand = List.copyOf(apiServerCommand);
    this.apiServerLog = apiServerLog;
    // If the JVM exits without close() (a killed test run), stop the processes and clean up anyway.
    this.shutdownHook = new Thread(this::stopAndCleanUp, "kube-apiserver-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  // The release of the test class running now in this JVM, set by KubeApiServerExtension for a
  // class annotated @OldestKubernetes: a fork runs one class at a time.
  private static volatile String classVersion;

  /**
   * The release the test class running now starts its servers of: {@link
   * #OLDEST_KUBERNETES_VERSION} in a class annotated {@link OldestKubernetes}, else {@code
   * pier.kube.version} when set, else {@link #KUBERNETES_VERSION}.
   */
  public static String version() {
    String forClass = classVersion;
    if (forClass != null) {
      return forClass;
    }
    String v = System.getProperty("pier.kube.version");
    return v == null || v.isBlank() ? KUBERNETES_VERSION : v;
  }

  /** The release of the class about to run (null: the default again), see {@link #version()}. */
  static void runClassOn(String version) {
    classVersion = version;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts a server with the default flags and only the admin user. */
  public static KubeApiServer start() {
    return builder().start();
  }

  /** The apiserver's base URL, {@code https://127.0.0.1:<port>}. */
  public String url() {
    return "https://127.0.0.1:" + port;
  }

  /** A kubeconfig for the admin user (group {@code system:masters}). */
  public Path kubeconfigPath() {
    return kubeconfig;
  }

  public String adminToken() {
    return adminToken;
  }

  /** The temporary directory holding data, keys, kubeconfigs and logs. */
  public Path directory() {
    return dir;
  }

  /** The directory the binaries came from (holds {@code kubectl} too after provisioning). */
  public Path binDir() {
    return binDir;
  }

  /**
   * The audit log file (policy level Metadata: user, verb, resource of every request).
   *
   * @throws IllegalStateException if the server was not built {@link Builder#withAuditLog()}
   */
  public Path auditLogPath() {
    if (auditLog == null) {
      throw new IllegalStateException("audit logging is off; build the server withAuditLog()");
    }
    return auditLog;
  }

  /** The admin's client, created on first use and closed with the server. */
  public synchronized KubernetesClient client() {
    ensureOpen();
    if (client == null) {
      client = newClient(kubeconfig);
    }
    return client;
  }

  /** Writes a kubeconfig that authenticates with {@code token} (need not be a known token). */
  public Path kubeconfigFor(String token) {
    ensureOpen();
    Path file = dir.resolve("kubeconfig-" + kubeconfigCounter.incrementAndGet() + ".yaml");
    writeKubeconfig(file, url(), caFile(dir), token);
    return file;
  }

  /** A new client that authenticates with {@code token}; the caller closes it. */
  public KubernetesClient newClient(String token) {
    return newClient(kubeconfigFor(token));
  }

  private static KubernetesClient newClient(Path kubeconfig) {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(kubeconfig.toFile()))
        .build();
  }

  /**
   * A nodePort that no Service on this server holds, that this server has not handed out before,
   * and that is free on loopback now. The server allocates nodePorts of other Services at random
   * from the whole range, so a random pick alone collides now and then.
   */
  public synchronized int freeNodePort() {
    java.util.Set<Integer> held = new java.util.HashSet<>(handedOutNodePorts);
    client().services().inAnyNamespace().list().getItems().stream()
        .flatMap(s -> s.getSpec().getPorts().stream())
        .map(p -> p.getNodePort())
        .filter(java.util.Objects::nonNull)
        .forEach(held::add);
    for (int i = 0; i < 500; i++) {
      int port = java.util.concurrent.ThreadLocalRandom.current().nextInt(20000, 32000);
      if (held.contains(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        handedOutNodePorts.add(port);
        return port;
      } catch (IOException busy) {
        // try another
      }
    }
    throw new IllegalStateException("no free nodePort in 20000-32000");
  }

  private final java.util.Set<Integer> handedOutNodePorts = new java.util.HashSet<>();

  /**
   * Creates a namespace named {@code prefix-<random suffix>} and returns its name. Deleted
   * namespaces stay Terminating forever on this server (no controllers), so each test takes a fresh
   * one.
   */
  public String createNamespace(String prefix) {
    Namespace ns =
        client()
            .namespaces()
            .resource(
                new NamespaceBuilder()
                    .withNewMetadata()
                    .withGenerateName(prefix + "-")
                    .endMetadata()
                    .build())
            .create();
    return ns.getMetadata().getName();
  }

  /**
   * Creates a Node and, since no kubelet runs, sets its status through the {@code nodes/status}
   * subresource: condition Ready=True and the addresses InternalIP and Hostname.
   */
  public Node createReadyNode(String name, String internalIp, Map<String, String> labels) {
    Node node =
        client()
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withLabels(labels == null ? Map.of() : labels)
                    .endMetadata()
                    .build())
            .create();
    node.setStatus(
        new NodeStatusBuilder()
            .withConditions(readyCondition(true))
            .withAddresses(
                new NodeAddress(internalIp, "InternalIP"), new NodeAddress(name, "Hostname"))
            .build());
    return client().nodes().resource(node).updateStatus();
  }

  /** Sets the Node's Ready condition to True or False through the status subresource. */
  public Node setNodeReady(String name, boolean ready) {
    return client()
        .nodes()
        .withName(name)
        .editStatus(
            node -> {
              List<NodeCondition> conditions = new ArrayList<>();
              if (node.getStatus().getConditions() != null) {
                node.getStatus().getConditions().stream()
                    .filter(c -> !"Ready".equals(c.getType()))
                    .forEach(conditions::add);
              }
              conditions.add(readyCondition(ready));
              return new NodeBuilder(node)
                  .editStatus()
                  .withConditions(conditions)
                  .endStatus()
                  .build();
            });
  }

  private static NodeCondition readyCondition(boolean ready) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    return new NodeConditionBuilder()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .withReason(ready ? "KubeletReady" : "KubeletNotReady")
        .withMessage(ready ? "set ready by the test kit" : "set not ready by the test kit")
        .withLastHeartbeatTime(now)
        .withLastTransitionTime(now)
        .build();
  }

  /**
   * The admin kubeconfig with everything inline (the CA as {@code certificate-authority-data}):
   * what a Secret that joins a member cluster to the federation holds.
   */
  public String selfContainedKubeconfig() {
    String trust =
        caFile(dir)
            .map(
                path -> {
                  try {
                    return "    certificate-authority-data: "
                        + Base64.getEncoder().encodeToString(Files.readAllBytes(path))
                        + "\n";
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                })
            .orElse("    insecure-skip-tls-verify: true\n");
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "- name: pier-test\n"
        + "  cluster:\n"
        + "    server: "
        + quote(url())
        + "\n"
        + trust
        + "users:\n"
        + "- name: pier-test-user\n"
        + "  user:\n"
        + "    token: "
        + quote(adminToken)
        + "\n"
        + "contexts:\n"
        + "- name: pier-test\n"
        + "  context:\n"
        + "    cluster: pier-test\n"
        + "    user: pier-test-user\n"
        + "current-context: pier-test\n";
  }

  /**
   * Freezes the API server process (SIGSTOP): it accepts connections and answers nothing, as a
   * black-holed or hung control plane does. {@link #thaw()} lets it go on where it stopped.
   */
  public void freeze() {
    signal("STOP");
  }

  /** Lets a frozen API server go on (SIGCONT). */
  public void thaw() {
    signal("CONT");
  }

  private void signal(String signal) {
    ensureOpen();
    long pid = processes.get(0).pid(); // the API server; etcd runs on
    frozen = signal.equals("STOP");
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
      if (!kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Stops the API server process (SIGTERM, then SIGKILL after a grace period) and leaves etcd
   * running: the port refuses connections until {@link #startApiServer()}, as during a control
   * plane upgrade or crash.
   */
  public synchronized void stopApiServer() {
    ensureOpen();
    if (frozen) {
      thaw();
    }
    stop(processes.get(0));
  }

  /**
   * Starts the API server again with the same flags, port, etcd and certificates after {@link
   * #stopApiServer()}, and waits until {@code /readyz} answers ok. Clients keep working: the
   * serving certificate and the kubeconfigs stay valid.
   */
  public synchronized void startApiServer() {
    ensureOpen();
    if (processes.get(0).isAlive()) {
      throw new IllegalStateException("the kube-apiserver at " + url() + " is running");
    }
    try {
      Files.writeString(
          apiServerLog,
          "$ (restart) " + String.join(" ", apiServerCommand) + "\n",
          java.nio.file.StandardOpenOption.APPEND);
      Process apiserver =
          new ProcessBuilder(apiServerCommand)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(apiServerLog.toFile()))
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      processes.set(0, apiserver);
      awaitHealthy(
          "kube-apiserver", apiserver, url() + "/readyz", adminToken, "ok", apiServerLog, dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Keeps the temporary directory (logs, audit log, etcd data) after {@link #close()}. */
  public void keepDirectoryOnClose() {
    keepDirectory = true;
  }

  /** Stops the apiserver, then etcd, and deletes the temporary directory. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    if (frozen) {
      thaw();
    }
    closed = true;
    if (client != null) {
      client.close();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the JVM is exiting; stopAndCleanUp below does what the hook would do
    }
    stopAndCleanUp();
  }

  private void stopAndCleanUp() {
    stopAll(processes);
    if (keepDirectory) {
      LOG.info("kube-apiserver stopped; kept its directory {}", dir);
    } else {
      deleteRecursively(dir);
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the kube-apiserver at " + url() + " is closed");
    }
  }

  /** Configures and starts a {@link KubeApiServer}. */
  public static final class Builder {
    private final Map<String, String> users = new LinkedHashMap<>();
    private final List<String> flags = new ArrayList<>();
    private boolean auditLog;

    private Builder() {}

    /**
     * Adds a user to the token file. Without RBAC bindings the user may do nothing beyond what
     * {@code system:authenticated} gets (discovery, self-reviews).
     */
    public Builder withUser(String token, String user, String... groups) {
      for (String value : Stream.concat(Stream.of(token, user), Stream.of(groups)).toList()) {
        if (value == null || value.isBlank() || value.matches(".*[,\"\\s].*")) {
          throw new IllegalArgumentException(
              "tokens, user and group names may not be blank or hold commas, quotes or spaces: "
                  + value);
        }
      }
      if (users.containsKey(token)) {
        throw new IllegalArgumentException("token already used for user " + users.get(token));
      }
      String line = token + "," + user + "," + user;
      if (groups.length > 0) {
        line += ",\"" + String.join(",", groups) + "\"";
      }
      users.put(token, line);
      return this;
    }

    /** Adds a kube-apiserver flag, e.g. {@code --feature-gates=...} or {@code --v=4}. */
    public Builder withFlag(String flag) {
      if (!flag.startsWith("--")) {
        throw new IllegalArgumentException("flags start with --: " + flag);
      }
      flags.add(flag);
      return this;
    }

    /** Writes an audit log at level Metadata for every request; see {@link #auditLogPath()}. */
    public Builder withAuditLog() {
      auditLog = true;
      return this;
    }

    /**
     * Starts etcd and kube-apiserver and waits until {@code /readyz} answers ok (at most 60 s).
     *
     * @throws IllegalStateException if the binaries are missing or the server does not come up
     */
    public KubeApiServer start() {
      Path binDir = resolveBinDir();
      RuntimeException last = null;
      for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
        try {
          return startOnce(binDir);
        } catch (PortClashException e) {
          LOG.warn("port clash on attempt {}, retrying: {}", attempt, e.getMessage());
          last = e;
        }
      }
      throw last;
    }

    private KubeApiServer startOnce(Path binDir) {
      long started = System.nanoTime();
      Path dir;
      try {
        dir = Files.createTempDirectory("pier-kube-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      String adminToken = "admin-" + randomHex(16);
      List<Process> processes = new ArrayList<>();
      Thread hook = new Thread(() -> stopAll(processes), "kube-apiserver-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        int etcdPort = FreePorts.take();
        int peerPort = FreePorts.take();
        int apiPort = FreePorts.take();
        Path certDir = Files.createDirectories(dir.resolve("certs"));
        writeServiceAccountKeys(dir);
        StringBuilder tokens = new StringBuilder(adminToken + ",admin,admin,system:masters\n");
        users.values().forEach(line -> tokens.append(line).append('\n'));
        Files.writeString(dir.resolve("tokens.csv"), tokens);

        String etcdUrl = "http://127.0.0.1:" + etcdPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        Process etcd =
            launch(
                dir.resolve("etcd.log"),
                List.of(
                    binDir.resolve("etcd").toString(),
                    "--name=pier",
                    "--data-dir=" + dir.resolve("etcd-data"),
                    "--listen-client-urls=" + etcdUrl,
                    "--advertise-client-urls=" + etcdUrl,
                    "--listen-peer-urls=" + peerUrl,
                    "--initial-advertise-peer-urls=" + peerUrl,
                    "--initial-cluster=pier=" + peerUrl,
                    // a single member: elect itself in ~0.1 s instead of ~1 s
                    "--heartbeat-interval=10",
                    "--election-timeout=100",
                    "--logger=zap"));
        processes.add(etcd);
        awaitHealthy(
            "etcd",
            etcd,
            etcdUrl + "/health",
            null,
            // etcd 3.6 and newer add a "reason" field
            "{\"health\":\"true\"",
            dir.resolve("etcd.log"),
            dir);

        List<String> command = new ArrayList<>();
        command.add(binDir.resolve("kube-apiserver").toString());
        command.addAll(
            List.of(
                "--etcd-servers=" + etcdUrl,
                "--bind-address=127.0.0.1",
                "--secure-port=" + apiPort,
                "--cert-dir=" + certDir,
                "--service-account-key-file=" + dir.resolve("sa.pub"),
                "--service-account-signing-key-file=" + dir.resolve("sa.key"),
                "--service-account-issuer=https://kubernetes.default.svc",
                "--token-auth-file=" + dir.resolve("tokens.csv"),
                "--authorization-mode=RBAC",
                "--service-cluster-ip-range=10.96.0.0/16",
                "--service-node-port-range=10000-32767"));
        Path auditLogPath = null;
        if (auditLog) {
          auditLogPath = dir.resolve("audit.log");
          Path policy = dir.resolve("audit-policy.yaml");
          Files.writeString(
              policy, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n");
          command.add("--audit-policy-file=" + policy);
          command.add("--audit-log-path=" + auditLogPath);
        }
        command.addAll(flags);
        Path apiLog = dir.resolve("kube-apiserver.log");
        Process apiserver = launch(apiLog, command);
        processes.add(0, apiserver); // stopped first
        String url = "https://127.0.0.1:" + apiPort;
        awaitHealthy("kube-apiserver", apiserver, url + "/readyz", adminToken, "ok", apiLog, dir);

        Path kubeconfig = dir.resolve("kubeconfig.yaml");
        writeKubeconfig(kubeconfig, url, caFile(dir), adminToken);
        LOG.info(
            "kube-apiserver {} ready at {} in {} ms (directory {})",
            version(),
            url,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
            dir);
        KubeApiServer server =
            new KubeApiServer(
                dir,
                binDir,
                adminToken,
                apiPort,
                kubeconfig,
                auditLogPath,
                processes,
                command,
                apiLog);
        Runtime.getRuntime().removeShutdownHook(hook);
        return server;
      } catch (IOException e) {
        abandon(processes, hook, dir, false);
        throw new UncheckedIOException("preparing " + dir + " failed", e);
      } catch (RuntimeException | Error e) {
        abandon(processes, hook, dir, e instanceof PortClashException);
        throw e;
      }
    }

    private static void abandon(List<Process> processes, Thread hook, Path dir, boolean delete) {
      stopAll(processes);
      Runtime.getRuntime().removeShutdownHook(hook);
      if (delete) {
        deleteRecursively(dir);
      } else {
        LOG.error("kube-apiserver did not start; kept its directory {}", dir);
      }
    }
  }

  // --- starting and stopping ---------------------------------------------------------------

  /**
   * The current release's binaries from {@code $PIER_KUBE_BIN_DIR}, the oldest release's (in the
   * compatibility run) from {@code $PIER_KUBE_OLDEST_BIN_DIR}, else from the cache entry that
   * scripts/provision.sh fills for that release.
   */
  private static Path resolveBinDir() {
    boolean current = version().equals(KUBERNETES_VERSION);
    String variable = current ? "PIER_KUBE_BIN_DIR" : "PIER_KUBE_OLDEST_BIN_DIR";
    String env = System.getenv(variable);
    Path binDir;
    String origin;
    if (env != null && !env.isBlank()) {
      binDir = Paths.get(env);
      origin = variable;
    } else {
      String xdg = System.getenv("XDG_CACHE_HOME");
      Path cache =
          xdg != null && !xdg.isBlank()
              ? Paths.get(xdg)
              : Paths.get(System.getProperty("user.home"), ".cache");
      String build = version() + BUILD_ID.substring(KUBERNETES_VERSION.length());
      binDir = cache.resolve("pier").resolve("kubernetes-" + build).resolve("bin");
      origin = "the default cache location (" + variable + " is not set)";
    }
    List<String> missing = new ArrayList<>();
    for (String binary : List.of("kube-apiserver", "etcd", "kubectl")) {
      if (!Files.isExecutable(binDir.resolve(binary))) {
        missing.add(binary);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "\n\n*** Integration tests need a real kube-apiserver "
              + version()
              + ", etcd and kubectl, but "
              + String.join(" and ", missing)
              + (missing.size() > 1 ? " are" : " is")
              + " missing from "
              + binDir
              + " ("
              + origin
              + ").\n*** Run scripts/provision.sh once (it builds and caches kube-apiserver, etcd and"
              + " kubectl from their Go modules, about half an hour the first time) and set PIER_KUBE_BIN_DIR to"
              + " the directory it prints on its last line, or simply run scripts/test.sh.\n"
              + "*** To leave these tests out for a quick loop: mvn test -Dpier.skipKube=true\n");
    }
    return binDir;
  }

  private static Process launch(Path log, List<String> command) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(log.getParent().toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Files.writeString(log, "$ " + String.join(" ", command) + "\n");
    return pb.start();
  }

  /**
   * Polls {@code url} until it answers 200 with a body that starts with {@code expectedBody} (at
   * most 60 s), failing early when the process exits.
   */
  private static void awaitHealthy(
      String name,
      Process process,
      String url,
      String token,
      String expectedBody,
      Path log,
      Path dir) {
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(trustAllContext())
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    String lastAnswer = "no answer yet";
    while (System.nanoTime() < deadline) {
      checkAlive(name, process, log, dir);
      try {
        HttpResponse<String> response =
            http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200 && response.body().strip().startsWith(expectedBody)) {
          return;
        }
        lastAnswer = "HTTP " + response.statusCode() + ": " + response.body().strip();
      } catch (IOException e) {
        lastAnswer = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + url, e);
      }
      sleep(200);
    }
    throw new IllegalStateException(
        name
            + " was not ready within "
            + READY_TIMEOUT.toSeconds()
            + " s; last answer of "
            + url
            + ": "
            + lastAnswer
            + failureDetails(log, dir));
  }

  private static void checkAlive(String name, Process process, Path log, Path dir) {
    if (process.isAlive()) {
      return;
    }
    String message = name + " exited with code " + process.exitValue() + failureDetails(log, dir);
    if (tail(log, 400).contains("address already in use")) {
      throw new PortClashException(message);
    }
    throw new IllegalStateException(message);
  }

  private static String failureDetails(Path log, Path dir) {
    return "\nkept directory: "
        + dir
        + "\n--- last lines of "
        + log
        + " ---\n"
        + tail(log, 40)
        + "--- end of "
        + log.getFileName()
        + " ---";
  }

  private static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())) + "\n";
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + log + ": " + e + ")\n";
    }
  }

  private static void stopAll(List<Process> processes) {
    for (Process process : List.copyOf(processes)) {
      stop(process);
    }
  }

  private static void stop(Process process) {
    List<ProcessHandle> children = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("process {} ignored SIGTERM for {}; killing it", process.pid(), STOP_GRACE);
        process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    children.forEach(ProcessHandle::destroyForcibly);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Thrown when a process could not bind its port, which another process took meanwhile. */
  private static final class PortClashException extends IllegalStateException {
    PortClashException(String message) {
      super(message);
    }
  }

  // --- files -------------------------------------------------------------------------------

  private static void writeServiceAccountKeys(Path dir) throws IOException {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      KeyPair pair = generator.generateKeyPair();
      Files.writeString(dir.resolve("sa.key"), pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
      Files.writeString(dir.resolve("sa.pub"), pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** The apiserver's self-signed serving certificate (PEM), for clients that take a CA file. */
  public Path caCertificate() {
    return caFile(dir).orElseThrow(() -> new IllegalStateException("no certificate in " + dir));
  }

  /** The CA to trust: the certificate file the apiserver generated in its cert dir, if any. */
  private static Optional<Path> caFile(Path dir) {
    Path crt = dir.resolve("certs").resolve("apiserver.crt");
    return Files.isRegularFile(crt) ? Optional.of(crt) : Optional.empty();
  }

  private static void writeKubeconfig(Path file, String url, Optional<Path> ca, String token) {
    String trust =
        ca.map(path -> "    certificate-authority: " + quote(path.toString()) + "\n")
            .orElse("    insecure-skip-tls-verify: true\n");
    String yaml =
        "apiVersion: v1\n"
            + "kind: Config\n"
            + "clusters:\n"
            + "- name: pier-test\n"
            + "  cluster:\n"
            + "    server: "
            + quote(url)
            + "\n"
            + trust
            + "users:\n"
            + "- name: pier-test-user\n"
            + "  user:\n"
            + "    token: "
            + quote(token)
            + "\n"
            + "contexts:\n"
            + "- name: pier-test\n"
            + "  context:\n"
            + "    cluster: pier-test\n"
            + "    user: pier-test-user\n"
            + "    namespace: default\n"
            + "current-context: pier-test\n";
    try {
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String quote(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    new SecureRandom().nextBytes(random);
    return HexFormat.of().formatHex(random);
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  /** Trusts any certificate: for test clients of the throwaway apiserver only. */
  public static SSLContext trustAllContext() {
    return TrustAll.context(null);
  }
}
