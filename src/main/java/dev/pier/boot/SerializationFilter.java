package dev.pier.boot;

import java.io.ObjectInputFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Java deserialization may create once scale-out runs, where bytes from other processes reach
 * the cluster manager: an allow-list of java.base value and collection classes, and Vert.x's,
 * Infinispan's, JGroups' and Pier's own; every other class is refused before it is instantiated.
 * Set as the JVM-wide filter, which every {@code ObjectInputStream} of the process obeys:
 * Infinispan marshals its own data with ProtoStream and JGroups with its own streams, so Java
 * serialization appears only where Vert.x stores a value that is not one of its
 * cluster-serializable types.
 */
final class SerializationFilter {
  private static final Logger log = LoggerFactory.getLogger(SerializationFilter.class);

  private static final String[] JAVA_PACKAGES = {
    "java.lang",
    "java.math",
    "java.time",
    "java.util",
    "java.util.concurrent",
    "java.util.concurrent.atomic",
    // ConcurrentHashMap's serialized form holds ReentrantLocks.
    "java.util.concurrent.locks",
  };
  private static final String[] JAVA_CLASSES = {
    "java.net.InetAddress",
    "java.net.Inet4Address",
    "java.net.Inet6Address",
    "java.net.InetSocketAddress",
    "java.net.URI",
  };
  private static final String[] OWN_PACKAGES = {
    "io.vertx", "org.infinispan", "org.jgroups", "dev.pier"
  };

  /**
   * The JVM-wide filter's pattern ({@link ObjectInputFilter.Config#createFilter}): a class in one
   * of the java packages (not their subpackages), one of the few java.net classes, or in a package
   * of Vert.x, Infinispan, JGroups or Pier at any depth; {@code !*} refuses the rest. Arrays are
   * judged by their element class; arrays of primitives pass. The limits bound a graph's size.
   */
  static final String PATTERN = pattern();

  static final ObjectInputFilter FILTER = ObjectInputFilter.Config.createFilter(PATTERN);

  private SerializationFilter() {}

  private static String pattern() {
    StringBuilder p = new StringBuilder("maxdepth=100;maxrefs=1000000;maxarray=10000000");
    for (String pkg : JAVA_PACKAGES) {
      p.append(';').append(pkg).append(".*");
    }
    for (String cls : JAVA_CLASSES) {
      p.append(';').append(cls);
    }
    for (String pkg : OWN_PACKAGES) {
      p.append(';').append(pkg).append(".**");
    }
    return p.append(";!*").toString();
  }

  /**
   * Makes {@link #FILTER} the JVM-wide filter, once. A filter set before (by {@code
   * -Djdk.serialFilter}) is the operator's choice and stays; the JVM allows only one.
   */
  static synchronized void install() {
    ObjectInputFilter current = ObjectInputFilter.Config.getSerialFilter();
    if (current == FILTER) {
      return;
    }
    if (current != null) {
      log.info(
          "Java deserialization: keeping the JVM-wide filter set before ({}) in place of Pier's"
              + " list",
          current);
      return;
    }
    ObjectInputFilter.Config.setSerialFilter(FILTER);
    log.debug("Java deserialization filtered JVM-wide: {}", PATTERN);
  }
}
