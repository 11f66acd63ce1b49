package dev.pier.testkit;

import dev.pier.boot.PierOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PowerDNS Authoritative server ({@code pdns_server} from Debian's {@code pdns-server}) with
 * its own config and sqlite3 database (created from the schema {@code pdns-backend-sqlite3} ships)
 * in a temporary directory, answering DNS on a free loopback port and serving the HTTP API
 * (webserver + api) on another. {@link #stop()} and {@link #start()} restart it on the same ports
 * with the same data. Fails loudly when the binaries are missing: run {@code scripts/provision.sh}.
 */
public final class PowerDnsServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PowerDnsServer.class);
  private static final Path SCHEMA =
      Path.of("/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql");
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

  private final Path dir;
  private final int dnsPort;
  private final int webPort;
  private final String apiKey;
  private final HttpClient http = HttpClient.newHttpClient();
  private Process process;

  private PowerDnsServer(Path dir, int dnsPort, int webPort, String apiKey) {
    this.dir = dir;
    this.dnsPort = dnsPort;
    this.webPort = webPort;
    this.apiKey = apiKey;
    // A killed test run must not leave pdns_server running.
    Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "pdns-shutdown"));
  }

  /** Creates the database and config, and starts the server. */
  public static PowerDnsServer create() {
    String binary = binary("pdns_server");
    binary("sqlite3");
    binary("dig");
    if (!Files.isRegularFile(SCHEMA)) {
      throw new IllegalStateException(
          SCHEMA + " is missing (Debian package pdns-backend-sqlite3): run scripts/provision.sh");
    }
    try {
      Path dir = Files.createTempDirectory("pier-pdns-");
      Path db = dir.resolve("pdns.sqlite3");
      Process p =
          new ProcessBuilder(binary("sqlite3"), db.toString())
              .redirectInput(SCHEMA.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("sqlite3.log").toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(
            "creating the PowerDNS database failed: "
                + Files.readString(dir.resolve("sqlite3.log")));
      }
      int dnsPort = freeUdpAndTcpPort();
      int webPort = freeUdpAndTcpPort();
      String key = UUID.randomUUID().toString();
      Files.writeString(dir.resolve("api-key"), key + "\n");
      Files.writeString(
          dir.resolve("pdns.conf"),
          String.join(
              "\n",
              "launch=gsqlite3",
              "gsqlite3-database=" + db,
              "local-address=127.0.0.1",
              "local-port=" + dnsPort,
              "api=yes",
              "api-key=" + key,
              "webserver=yes",
              "webserver-address=127.0.0.1",
              "webserver-port=" + webPort,
              "webserver-allow-from=127.0.0.0/8",
              "socket-dir=" + dir,
              "daemon=no",
              "guardian=no",
              "security-poll-suffix=",
              "loglevel=4",
              // LUA records (the weighted and views strategies) and EDNS Client Subnet, as
              // docs/dns.md documents them.
              "enable-lua-records=yes",
              "edns-subnet-processing=yes",
              ""));
      PowerDnsServer server = new PowerDnsServer(dir, dnsPort, webPort, key);
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts the server (again) and waits until its API answers. */
  public synchronized void start() {
    if (process != null && process.isAlive()) {
      return;
    }
    try {
      process =
          new ProcessBuilder(binary("pdns_server"), "--config-dir=" + dir)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("pdns.log").toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("pdns_server exited: " + log());
      }
      try {
        if (api("GET", "", null).statusCode() == 200) {
          LOG.info("PowerDNS up: DNS 127.0.0.1:{}, API {}", dnsPort, apiUrl());
          return;
        }
      } catch (RuntimeException notYet) {
        // still starting
      }
      sleep(100);
    }
    throw new IllegalStateException(
        "pdns_server did not answer within " + READY_TIMEOUT + ": " + log());
  }

  /** Stops the server; the data stays for {@link #start()}. */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /**
   * Pier's configuration (as environment variables) for DNS on this server: {@code zone}, Pier's
   * owner id {@code ownerId}, the API key file, a 2 s timeout per call; a mutable map.
   */
  public Map<String, String> pierEnv(String zone, String ownerId) {
    return pierEnv(zone, ownerId, apiUrl());
  }

  /** As {@link #pierEnv(String, String)}, the API reached at {@code url} (a proxy in front). */
  public Map<String, String> pierEnv(String zone, String ownerId, String url) {
    Map<String, String> env = new HashMap<>();
    env.put(PierOptions.DNS_ENABLED.envName(), "true");
    env.put(PierOptions.DNS_ZONE_NAME.envName(), zone);
    env.put(PierOptions.DNS_OWNER_ID.envName(), ownerId);
    env.put(PierOptions.DNS_POWERDNS_URL.envName(), url);
    env.put(PierOptions.DNS_POWERDNS_API_KEY_FILE.envName(), apiKeyFile().toString());
    env.put(PierOptions.DNS_POWERDNS_TIMEOUT.envName(), "2s");
    return env;
  }

  /** The webserver URL, {@code http://127.0.0.1:<port>}. */
  public String apiUrl() {
    return "http://127.0.0.1:" + webPort;
  }

  public int dnsPort() {
    return dnsPort;
  }

  /** A file holding the API key, for {@code dns.powerdns.apiKeyFile}. */
  public Path apiKeyFile() {
    return dir.resolve("api-key");
  }

  public String apiKey() {
    return apiKey;
  }

  /** Calls the API under {@code /api/v1/servers/localhost}; {@code body} is JSON or null. */
  public HttpResponse<String> api(String method, String path, String body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(apiUrl() + "/api/v1/servers/localhost" + path))
            .timeout(Duration.ofSeconds(10))
            .header("X-API-Key", apiKey)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Creates a zone; returns its id. */
  public String createZone(String name) {
    HttpResponse<String> r =
        api("POST", "/zones", "{\"name\":\"" + name + "\",\"kind\":\"Native\",\"nameservers\":[]}");
    if (r.statusCode() != 201) {
      throw new IllegalStateException(
          "creating zone " + name + ": " + r.statusCode() + " " + r.body());
    }
    return name;
  }

  /** Writes an rrset without any comment: a record Pier did not create. */
  public void putForeign(String zone, String name, String type, String content) {
    patchRrset(
        zone,
        name,
        "{\"name\":\""
            + name
            + "\",\"type\":\""
            + type
            + "\",\"ttl\":300,\"changetype\":\"REPLACE\",\"records\":[{\"content\":\""
            + content
            + "\",\"disabled\":false}]}");
  }

  /** Deletes an rrset, as another writer would. */
  public void deleteForeign(String zone, String name, String type) {
    patchRrset(
        zone,
        name,
        "{\"name\":\"" + name + "\",\"type\":\"" + type + "\",\"changetype\":\"DELETE\"}");
  }

  private void patchRrset(String zone, String name, String rrset) {
    HttpResponse<String> r = api("PATCH", "/zones/" + zone, "{\"rrsets\":[" + rrset + "]}");
    if (r.statusCode() != 204) {
      throw new IllegalStateException("writing " + name + ": " + r.statusCode() + " " + r.body());
    }
  }

  /** A counter of the server's statistics ({@code udp-queries}, ...), or -1 when absent. */
  public long statistic(String name) {
    JsonArray stats = new JsonArray(api("GET", "/statistics?statistic=" + name, null).body());
    for (Object o : stats) {
      JsonObject s = (JsonObject) o;
      if (name.equals(s.getString("name"))) {
        return Long.parseLong(String.valueOf(s.getValue("value")));
      }
    }
    return -1;
  }

  /** The zone as the API returns it (JSON text with every rrset and its comments). */
  public String zoneJson(String zone) {
    return api("GET", "/zones/" + zone, null).body();
  }

  /**
   * Asks the server over DNS: {@code dig +short} answers (one per line; a CNAME answer shows its
   * target first). Empty when the name has no record of that type.
   */
  public List<String> dig(String name, String type) {
    return digRaw("+short", name, type).stream()
        .filter(l -> !l.isEmpty() && !l.startsWith(";;"))
        .toList();
  }

  /** The status of an answer: NOERROR, NXDOMAIN, ... */
  public String digStatus(String name, String type) {
    for (String line : digRaw("+noall", name, type, "+comments")) {
      int i = line.indexOf("status: ");
      if (i >= 0) {
        return line.substring(i + 8, line.indexOf(',', i));
      }
    }
    return "none";
  }

  private List<String> digRaw(String style, String name, String type, String... more) {
    List<String> cmd =
        new ArrayList<>(
            List.of(binary("dig"), "@127.0.0.1", "-p", "" + dnsPort, "+time=2", "+tries=1", style));
    cmd.addAll(List.of(more));
    cmd.add(name);
    cmd.add(type);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
      return out.lines().map(String::trim).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private String log() {
    try {
      String s = Files.readString(dir.resolve("pdns.log"));
      return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    } catch (IOException e) {
      return "(no log)";
    }
  }

  @Override
  public void close() {
    stop();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  private static String binary(String name) {
    for (String d : List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin")) {
      Path p = Path.of(d, name);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    throw new IllegalStateException(
        name
            + " not found (Debian packages pdns-server, pdns-backend-sqlite3, dnsutils, sqlite3):"
            + " run scripts/provision.sh");
  }

  private static int freeUdpAndTcpPort() {
    InetAddress lo = InetAddress.getLoopbackAddress();
    for (int i = 0; i < 200; i++) {
      int port = ThreadLocalRandom.current().nextInt(33000, 60000);
      try (ServerSocket tcp = new ServerSocket(port, 1, lo);
          DatagramSocket udp = new DatagramSocket(new InetSocketAddress(lo, port))) {
        return port;
      } catch (IOException busy) {
        // another
      }
    }
    throw new IllegalStateException("no free port");
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
