package dev.pier.boot;

import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.JavaSerializationFilterConfig;
import java.io.ObjectInputFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Java deserialization may create once scale-out runs, where bytes from other processes reach
 * Hazelcast: an allow-list of java.base value and collection classes, Vert.x's, Hazelcast's and
 * Pier's own; every other class is refused before it is instantiated. Applied twice: as the
 * JVM-wide filter (every {@code ObjectInputStream} of the process), and as Hazelcast's own filter
 * of its Java and Externalizable serializers (which holds even where an operator set another
 * JVM-wide filter with {@code -Djdk.serialFilter}).
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
  private static final String[] OWN_PACKAGES = {"io.vertx", "com.hazelcast", "dev.pier"};

  /**
   * The JVM-wide filter's pattern ({@link ObjectInputFilter.Config#createFilter}): a class in one
   * of the java packages (not their subpackages), one of the few java.net classes, or in a package
   * of Vert.x, Hazelcast or Pier at any depth; {@code !*} refuses the rest. Arrays are judged by
   * their element class; arrays of primitives pass. The limits bound a graph's size.
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
          "Java deserialization: keeping the JVM-wide filter set before ({}); Hazelcast's own"
              + " filter still allows only Pier's list",
          current);
      return;
    }
    ObjectInputFilter.Config.setSerialFilter(FILTER);
    log.debug("Java deserialization filtered JVM-wide: {}", PATTERN);
  }

  /** The same allow-list as Hazelcast's filter, without Hazelcast's broader defaults. */
  static JavaSerializationFilterConfig hazelcast() {
    ClassFilter allowed = new ClassFilter().addPackages(JAVA_PACKAGES).addClasses(JAVA_CLASSES);
    for (String pkg : OWN_PACKAGES) {
      allowed.addPrefixes(pkg + ".");
    }
    // Array classes are named "[L<element>;": their elements are resolved, and judged, apart.
    allowed.addPrefixes("[");
    return new JavaSerializationFilterConfig().setDefaultsDisabled(true).setWhitelist(allowed);
  }
}
