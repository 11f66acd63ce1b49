package dev.pier.federation.sync;

import dev.pier.federation.CopyState;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.model.ServiceKey;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** Reads the copies of one host Service from its members, each through the {@link CopyReader}. */
final class ServiceCopies {
  private final Members members;
  private final CopyReader reader;

  /**
   * The copies of one Service read from its members.
   *
   * @param known by member
   * @param unknown members whose copy could not be read (the owner moving or unreachable), with
   *     why, by name
   */
  record Read(Map<String, CopyState> known, Map<String, String> unknown) {}

  ServiceCopies(Members members, CopyReader reader) {
    this.members = members;
    this.reader = reader;
  }

  /** The copies of the key's Service in {@code clusters}; a read never fails the whole. */
  Future<Read> read(ServiceKey key, Iterable<String> clusters) {
    Map<String, Future<CopyState>> reads = new TreeMap<>();
    for (String name : clusters) {
      Member m = members.get(name);
      if (m != null) {
        reads.put(name, reader.read(m, key.namespace(), key.name()));
      }
    }
    return Future.join(new ArrayList<>(reads.values()))
        .transform(all -> Future.succeededFuture(collect(reads)));
  }

  private static Read collect(Map<String, Future<CopyState>> reads) {
    Map<String, CopyState> known = new HashMap<>();
    Map<String, String> unknown = new TreeMap<>();
    reads.forEach(
        (name, f) -> {
          if (f.succeeded()) {
            known.put(name, f.result());
          } else {
            unknown.put(name, String.valueOf(f.cause().getMessage()));
          }
        });
    return new Read(known, unknown);
  }
}
