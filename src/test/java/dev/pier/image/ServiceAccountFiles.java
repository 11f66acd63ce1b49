package dev.pier.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A pod's service account as the kubelet mounts it: {@code token}, {@code ca.crt} and {@code
 * namespace} in {@code /var/run/secrets/kubernetes.io/serviceaccount}, readable by any user.
 */
record ServiceAccountFiles(String token, Path caCertificate, String namespace) {
  static final String DIR = "var/run/secrets/kubernetes.io/serviceaccount";

  /**
   * Lays the files out under {@code pod}, as the root of a layer over {@code image}: where the
   * image's {@code /var/run} is a link to {@code /run} (Debian's), under {@code run/}.
   */
  Path writeUnder(Path pod, Path image) {
    try {
      String dir = Files.isSymbolicLink(image.resolve("var/run")) ? DIR.substring(4) : DIR;
      Path sa = pod.resolve(dir);
      Files.createDirectories(sa);
      for (Path p = sa; !p.equals(pod); p = p.getParent()) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
      Files.writeString(sa.resolve("token"), token);
      Files.copy(caCertificate, sa.resolve("ca.crt"));
      Files.writeString(sa.resolve("namespace"), namespace);
      for (String f : new String[] {"token", "ca.crt", "namespace"}) {
        Files.setPosixFilePermissions(sa.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
      }
      Files.setPosixFilePermissions(pod, PosixFilePermissions.fromString("rwxr-xr-x"));
      return sa;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
