package dev.pier.federation.sync;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The copies this process proved Pier's while the host Service's record does not name them yet: the
 * ones it made (until the host side recorded them) and the ones the record of copies left behind
 * names. The member's side sends the proof to the host side in its {@code CopyState}, where the
 * record is written. Read by the metrics' scrapes too, hence concurrent.
 */
final class ProvenCopies {
  private final Map<String, String> uids = new ConcurrentHashMap<>();

  void add(String member, String namespace, String name, String uid) {
    if (uid != null) {
      uids.put(key(member, namespace, name), uid);
    }
  }

  /** The uid proven Pier's for the member's Service of this name, or null. */
  String uid(String member, String namespace, String name) {
    return uids.get(key(member, namespace, name));
  }

  /** The proof is no longer needed: the record names the copy, or the copy is gone. */
  void remove(String member, String namespace, String name) {
    uids.remove(key(member, namespace, name));
  }

  private static String key(String member, String namespace, String name) {
    return member + "/" + namespace + "/" + name;
  }
}
