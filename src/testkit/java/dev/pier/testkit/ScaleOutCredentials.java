package dev.pier.testkit;

import dev.pier.boot.PierOptions;
import dev.pier.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;

/**
 * The material of scale-out's mutual TLS for tests, written by {@code pier scale-out-certs} once
 * per test run into the build directory ({@code scale-out-tls/}) and shared by every replica of
 * every test, as a Secret is shared by a Deployment's pods.
 */
public final class ScaleOutCredentials {
  /** A CA and the replicas' certificate and key it signed. */
  public record Material(Path ca, Path cert, Path key) {
    /** The {@code PIER_SCALE_OUT_TLS_*} variables that point a replica at these files. */
    public Map<String, String> env() {
      Map<String, String> env = new HashMap<>();
      env.put(PierOptions.SCALE_OUT_TLS_CA_FILE.envName(), ca.toString());
      env.put(PierOptions.SCALE_OUT_TLS_CERT_FILE.envName(), cert.toString());
      env.put(PierOptions.SCALE_OUT_TLS_KEY_FILE.envName(), key.toString());
      return env;
    }

    /** The {@code tls:} block of {@code scaleOut:} in pier.yaml, each line after {@code indent}. */
    public String yaml(String indent) {
      return indent
          + "tls:\n"
          + indent
          + "  certFile: "
          + cert
          + "\n"
          + indent
          + "  keyFile: "
          + key
          + "\n"
          + indent
          + "  caFile: "
          + ca
          + "\n";
    }
  }

  private static Material shared;

  private ScaleOutCredentials() {}

  /** The set every replica of this test run presents. */
  public static synchronized Material shared() {
    if (shared == null) {
      Path dir = buildDirectory().resolve("scale-out-tls");
      if (!Files.exists(dir.resolve("tls.key"))) {
        try {
          Path fresh = Files.createTempDirectory(buildDirectory(), "scale-out-tls-");
          Files.delete(fresh);
          write(fresh);
          // Test JVMs running beside this one may make theirs at once: the first one stays.
          Files.move(fresh, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
          // Another test JVM made it first.
        } catch (IOException e) {
          if (!Files.exists(dir.resolve("tls.key"))) {
            throw new UncheckedIOException(e);
          }
        }
      }
      shared = of(dir);
    }
    return shared;
  }

  /** A set of another CA, made now in {@code dir}: a process that holds it is no replica. */
  public static Material other(Path dir) {
    write(dir);
    return of(dir);
  }

  private static Material of(Path dir) {
    return new Material(dir.resolve("ca.crt"), dir.resolve("tls.crt"), dir.resolve("tls.key"));
  }

  private static void write(Path dir) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Cli.run(
            new String[] {"scale-out-certs", "--out", dir.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    if (status != 0) {
      throw new IllegalStateException(
          "pier scale-out-certs failed (" + status + "): " + err.toString(StandardCharsets.UTF_8));
    }
  }

  /** The directory the test classes were compiled into sits in the build directory. */
  private static Path buildDirectory() {
    try {
      return Path.of(
              ScaleOutCredentials.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
