package dev.pier.testkit;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/** Several API servers of a federation, started side by side. */
public final class KubeApiServers {
  private KubeApiServers() {}

  /**
   * Starts one server per name, at most {@code parallel} at a time; if one fails to start, those
   * that started are closed and the failure is thrown.
   */
  public static Map<String, KubeApiServer> start(
      Collection<String> names, int parallel, Supplier<KubeApiServer> each) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, parallel));
    try {
      Map<String, Future<KubeApiServer>> starting = new TreeMap<>();
      for (String name : names) {
        starting.put(name, pool.submit(each::get));
      }
      Map<String, KubeApiServer> started = new TreeMap<>();
      Exception failed = null;
      for (Map.Entry<String, Future<KubeApiServer>> e : starting.entrySet()) {
        try {
          started.put(e.getKey(), e.getValue().get());
        } catch (ExecutionException ex) {
          failed = ex;
        }
      }
      if (failed != null) {
        started.values().forEach(KubeApiServer::close);
        throw failed;
      }
      return started;
    } finally {
      pool.shutdown();
    }
  }
}
