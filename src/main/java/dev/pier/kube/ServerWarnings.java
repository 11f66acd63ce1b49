package dev.pier.kube;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code Warning} headers an API server adds to an answer (a deprecated API, a field it
 * dropped, a value it will refuse one day), logged once per distinct text, so that what a newer
 * server tells Pier reaches its operator without flooding the log. fabric8 logs those of its own
 * requests itself; this covers the requests Pier sends through {@link AsyncKubeApi}.
 */
final class ServerWarnings {
  private static final Logger LOG = LoggerFactory.getLogger(ServerWarnings.class);
  // Bounded: a server that puts a changing text in every warning cannot grow the set forever.
  private static final int MAX_REMEMBERED = 256;

  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  void note(String request, List<String> warnings) {
    if (warnings == null) {
      return;
    }
    for (String warning : warnings) {
      if (logged.size() < MAX_REMEMBERED && logged.add(warning)) {
        LOG.warn("The API server warned about {}: {}", request, warning);
      }
    }
  }
}
