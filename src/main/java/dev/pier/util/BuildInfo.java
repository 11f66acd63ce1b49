package dev.pier.util;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version and git revision of this build, written by Maven into {@code
 * dev/pier/util/build.properties} (a filtered resource in {@code src/main/resources-filtered}):
 * {@code --version}, the start log line and {@code pier_build_info}. The revision is "unknown" for
 * a build outside a git checkout.
 */
public record BuildInfo(String version, String revision) {
  public static final String UNKNOWN = "unknown";
  private static final String RESOURCE = "build.properties";

  public static BuildInfo of(String version, String revision) {
    return new BuildInfo(known(version), known(revision));
  }

  public static BuildInfo current() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return of(p.getProperty("version"), p.getProperty("revision"));
  }

  // An unfilled placeholder (${...}) is what Maven leaves when the git plugin found no repository.
  private static String known(String value) {
    return value == null || value.isBlank() || value.startsWith("${") ? UNKNOWN : value;
  }

  @Override
  public String toString() {
    return "pier " + version + " (" + revision + ")";
  }
}
