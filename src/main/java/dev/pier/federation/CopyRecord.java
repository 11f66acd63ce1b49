package dev.pier.federation;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Service;
import io.vertx.core.json.JsonObject;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Pier's record of the copies of one host Service, by member: the annotation {@link
 * FederationKeys#COPY_UIDS_ANNOTATION} on the host Service, one JSON object. A member's entry is
 * the uid of the copy Pier made there ({@code "east":"<uid>"}), or, until the host side has
 * recorded that uid, the intent to make one ({@code "west":"pending:<nonce>"}): the copy is made
 * carrying the nonce ({@link FederationKeys#COPY_NONCE_ANNOTATION}).
 *
 * <p>Anyone who may create a Service in a member namespace can give it the federation's marks; no
 * one can choose its uid, and no one there knows a nonce before Pier's copy shows it. So a marked
 * member Service is Pier's copy only when its uid is the one recorded here, or while the entry is
 * still an intent, when it carries the intent's nonce and Pier has no proof of another copy there
 * ({@link CopyTrust}).
 *
 * @param entries by member name: a uid, or {@link #PENDING} and a nonce
 */
public record CopyRecord(SortedMap<String, String> entries) {
  /** The record of a Service with no copy and no intent. */
  public static final CopyRecord EMPTY = new CopyRecord(new TreeMap<>());

  /** How an intent's entry begins; a uid never does. */
  public static final String PENDING = "pending:";

  public CopyRecord {
    entries = Collections.unmodifiableSortedMap(new TreeMap<>(entries));
  }

  /**
   * The host Service's record, or null when it has none: a Service Pier never federated, released
   * since, or federated by a version that kept no record.
   */
  public static CopyRecord of(Service host) {
    Map<String, String> a = host == null ? null : host.getMetadata().getAnnotations();
    String json = a == null ? null : a.get(FederationKeys.COPY_UIDS_ANNOTATION);
    return json == null ? null : parse(json);
  }

  /**
   * The record in {@code json}. One that is not a JSON object of strings (edited by hand) believes
   * nothing: an unreadable record never makes a member Service Pier's.
   */
  static CopyRecord parse(String json) {
    SortedMap<String, String> entries = new TreeMap<>();
    try {
      JsonObject o = new JsonObject(json);
      for (Map.Entry<String, Object> e : o) {
        if (!(e.getValue() instanceof String value) || value.isEmpty() || value.equals(PENDING)) {
          return EMPTY;
        }
        entries.put(e.getKey(), value);
      }
    } catch (RuntimeException e) {
      // Not JSON, or not an object.
      return EMPTY;
    }
    return new CopyRecord(entries);
  }

  /** The uid of the copy Pier made in {@code member}, or null (none, or only an intent). */
  public String uid(String member) {
    String e = entries.get(member);
    return e == null || e.startsWith(PENDING) ? null : e;
  }

  /** The nonce of Pier's intent to make a copy in {@code member}, or null. */
  public String intent(String member) {
    String e = entries.get(member);
    return e != null && e.startsWith(PENDING) ? e.substring(PENDING.length()) : null;
  }

  public CopyRecord with(String member, String uid) {
    return put(member, uid);
  }

  public CopyRecord withIntent(String member, String nonce) {
    return put(member, PENDING + nonce);
  }

  public CopyRecord without(String member) {
    SortedMap<String, String> next = new TreeMap<>(entries);
    next.remove(member);
    return new CopyRecord(next);
  }

  /**
   * Whether {@code next} has an intent that {@code previous} (either may be null) does not: the
   * member keys then have a copy to make.
   */
  public static boolean addsIntent(CopyRecord previous, CopyRecord next) {
    if (next == null) {
      return false;
    }
    for (String member : next.entries.keySet()) {
      String nonce = next.intent(member);
      if (nonce != null && (previous == null || !nonce.equals(previous.intent(member)))) {
        return true;
      }
    }
    return false;
  }

  /** The annotation's value, members in order. */
  public String json() {
    JsonObject o = new JsonObject();
    entries.forEach(o::put);
    return o.encode();
  }

  private CopyRecord put(String member, String value) {
    SortedMap<String, String> next = new TreeMap<>(entries);
    next.put(member, Objects.requireNonNull(value));
    return new CopyRecord(next);
  }
}
