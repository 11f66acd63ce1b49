package dev.pier.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * {@code pier scale-out-certs --out DIR}: writes the material of scale-out's mutual TLS as a {@code
 * kubernetes.io/tls}-style set, {@code ca.crt}, {@code tls.crt} and {@code tls.key}
 * (docs/scale-out.md), and says how to make the Secret the replicas mount.
 */
final class ScaleOutCerts {
  static final Duration DEFAULT_VALID_FOR = Duration.ofDays(3650);
  static final List<String> FILES = List.of("ca.crt", "tls.crt", "tls.key");

  private ScaleOutCerts() {}

  static int run(List<String> args, PrintStream out) {
    Flags f = Flags.parse(args, Set.of("--out", "--valid-for"), Set.of("--force"));
    if (!f.positional().isEmpty()) {
      throw CliException.usage("unexpected argument '" + f.positional().get(0) + "'");
    }
    if (!f.has("--out")) {
      throw CliException.usage("missing --out DIR");
    }
    Path dir = Path.of(f.string("--out", ""));
    Duration validFor = f.duration("--valid-for", DEFAULT_VALID_FOR);
    if (validFor.compareTo(Duration.ofDays(1)) < 0) {
      throw CliException.usage("flag --valid-for: at least 24h");
    }
    boolean force = f.on("--force");
    PeerCertificates.Material material = new PeerCertificates().generate(Instant.now(), validFor);
    try {
      Files.createDirectories(dir);
      for (String file : FILES) {
        if (!force && Files.exists(dir.resolve(file))) {
          // Nothing written: a set is never half replaced.
          throw new FileAlreadyExistsException(dir.resolve(file).toString());
        }
      }
      write(dir.resolve("ca.crt"), material.caCertificate(), false, force);
      write(dir.resolve("tls.crt"), material.certificate(), false, force);
      write(dir.resolve("tls.key"), material.privateKey(), true, force);
    } catch (FileAlreadyExistsException e) {
      throw CliException.failed(
          e.getFile() + " exists: choose another --out, or --force to replace the set");
    } catch (IOException e) {
      throw CliException.failed("cannot write to " + dir + ": " + e);
    }
    out.println(
        "Wrote "
            + dir.resolve("ca.crt")
            + ", tls.crt and tls.key (valid for "
            + validFor.toDays()
            + " days). Make the Secret the replicas mount:");
    out.println("  kubectl -n pier create secret generic pier-scale-out-tls --from-file=" + dir);
    out.println(
        "and set scaleOut.tls.certFile, keyFile and caFile to its tls.crt, tls.key and ca.crt"
            + " (k8s/scale-out.yaml mounts it at /etc/pier/scale-out-tls; with the chart:"
            + " --set scaleOut.tls.existingSecret=pier-scale-out-tls).");
    return 0;
  }

  /** Writes a whole new file; a key readable by its owner alone. */
  private static void write(Path file, String text, boolean secret, boolean force)
      throws IOException {
    if (force) {
      Files.deleteIfExists(file);
    }
    if (secret && file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(file, text, StandardOpenOption.TRUNCATE_EXISTING);
    } else {
      Files.writeString(file, text, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }
  }
}
