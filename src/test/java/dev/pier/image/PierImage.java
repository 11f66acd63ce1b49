package dev.pier.image;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pier's image in podman's storage, built by {@code scripts/image.sh} from the jar under test, or
 * the one built before from the same inputs (tagged with their hash), so that a rerun with an
 * unchanged jar builds nothing.
 */
record PierImage(String ref) {
  private static final Logger LOG = LoggerFactory.getLogger(PierImage.class);
  static final String REPOSITORY = "localhost/pier-test";
  private static final Duration PODMAN = Duration.ofMinutes(2);
  private static final Duration BUILD = Duration.ofMinutes(10);

  /** What the image is made of besides the jar: the recipe and the files it copies. */
  private static final List<Path> INPUTS =
      List.of(
          Path.of("scripts/image.sh"),
          Path.of("scripts/image/base.sh"),
          Path.of("scripts/image/packages"),
          Path.of("scripts/image/not-at-runtime"),
          Path.of("conf/jvm.options"),
          Path.of("conf/pier.yaml"),
          Path.of("src/main/cds/pier.classlist"));

  /**
   * The image for this jar (with its SBOM beside it), built when none exists yet. The base must be
   * cached already: the test forks have no network (scripts/provision.sh builds it).
   */
  static PierImage forJar(Path jar, Path out) {
    String ref = REPOSITORY + ":" + key(jar);
    if (Command.of(PODMAN, "podman", "image", "exists", ref).run().exitCode() == 0) {
      LOG.info("reusing {}, built from the same jar and recipe", ref);
      return new PierImage(ref);
    }
    long started = System.nanoTime();
    Command build =
        new Command(
            List.of(
                "scripts/image.sh", "--jar", jar.toString(), "--tag", ref, "--out", out.toString()),
            Map.of("PIER_IMAGE_OFFLINE", "1"),
            BUILD);
    build.check();
    LOG.info("built {} in {} s", ref, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    removeOthers(ref);
    return new PierImage(ref);
  }

  /** Earlier test images, of other jars: removed, unless in use. */
  private static void removeOthers(String keep) {
    String listed =
        Command.of(
                PODMAN,
                "podman",
                "images",
                "--filter",
                "reference=" + REPOSITORY,
                "--format",
                "{{.Repository}}:{{.Tag}}")
            .check();
    listed
        .lines()
        .map(String::strip)
        .filter(r -> r.startsWith(REPOSITORY + ":") && !r.equals(keep))
        .forEach(r -> Command.of(PODMAN, "podman", "rmi", r).run());
  }

  private static String key(Path jar) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      digestEntries(sha, jar);
      for (Path input : INPUTS) {
        digest(sha, input);
      }
      return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The jar by what it holds (each entry's name, size and CRC), not its bytes: every build stamps
   * its entries with the build's time, and an image built from the same classes is the same image.
   * Maven's pom.properties, which may carry the build's date, is left out.
   */
  private static void digestEntries(MessageDigest sha, Path jar) {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      zip.stream()
          .filter(e -> !e.getName().endsWith("/pom.properties"))
          .sorted(Comparator.comparing(ZipEntry::getName))
          .forEach(
              e ->
                  sha.update(
                      (e.getName() + ":" + e.getSize() + ":" + e.getCrc() + "\n")
                          .getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void digest(MessageDigest sha, Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buffer = new byte[1 << 16];
      int n;
      while ((n = in.read(buffer)) > 0) {
        sha.update(buffer, 0, n);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  ImageConfig config() {
    return ImageConfig.parse(
        Command.of(PODMAN, "podman", "image", "inspect", "--format", "{{json .Config}}", ref)
            .check());
  }

  /** The image's root filesystem, read-only (podman image mount), until {@link #unmount()}. */
  Path mount() {
    return Path.of(Command.of(PODMAN, "podman", "image", "mount", ref).check().strip());
  }

  void unmount() {
    Command.of(PODMAN, "podman", "image", "unmount", ref).run();
  }
}
