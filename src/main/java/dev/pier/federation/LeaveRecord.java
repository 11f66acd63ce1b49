package dev.pier.federation;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Secret Pier keeps for a member that is leaving, so that the leave survives a restart and is
 * carried out with the member's last credentials: {@code pier-leaving-<member>} in the member
 * Secrets' namespace, with the member Secret's data, annotations and labels ({@code
 * pier.dev/cluster} turned into {@link FederationKeys#LEAVING_LABEL}, so that it never joins a
 * member by itself) and the time the member leaves.
 */
public final class LeaveRecord {
  public static final String PREFIX = "pier-leaving-";

  private LeaveRecord() {}

  public static String name(String member) {
    return PREFIX + member;
  }

  /**
   * The record of {@code member} leaving at {@code leaveAt}, from its member Secret's last state.
   */
  public static Secret of(Secret memberSecret, String member, Instant leaveAt) {
    Map<String, String> labels =
        new LinkedHashMap<>(orEmpty(memberSecret.getMetadata().getLabels()));
    labels.remove(FederationKeys.CLUSTER_SECRET_LABEL);
    labels.put(FederationKeys.LEAVING_LABEL, member);
    Map<String, String> annotations =
        new LinkedHashMap<>(orEmpty(memberSecret.getMetadata().getAnnotations()));
    annotations.put(FederationKeys.LEAVE_AT_ANNOTATION, leaveAt.toString());
    Map<String, String> data = new LinkedHashMap<>(orEmpty(memberSecret.getData()));
    orEmpty(memberSecret.getStringData())
        .forEach(
            (k, v) ->
                data.put(
                    k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return new SecretBuilder()
        .withApiVersion("v1")
        .withKind("Secret")
        .withNewMetadata()
        .withNamespace(memberSecret.getMetadata().getNamespace())
        .withName(name(member))
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .withType("Opaque")
        .withData(data)
        .build();
  }

  /** The member a record is for, or null when it is not a record. */
  public static String member(Secret record) {
    return orEmpty(record.getMetadata().getLabels()).get(FederationKeys.LEAVING_LABEL);
  }

  /** When the member leaves; null when the record does not say it in a form Pier reads. */
  public static Instant leaveAt(Secret record) {
    String at =
        orEmpty(record.getMetadata().getAnnotations()).get(FederationKeys.LEAVE_AT_ANNOTATION);
    try {
      return at == null ? null : Instant.parse(at);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** The member Secret the record was made from, as Pier reads member Secrets. */
  public static Secret asMemberSecret(Secret record) {
    Map<String, String> labels = new LinkedHashMap<>(orEmpty(record.getMetadata().getLabels()));
    String member = labels.remove(FederationKeys.LEAVING_LABEL);
    labels.put(FederationKeys.CLUSTER_SECRET_LABEL, member == null ? "" : member);
    return new SecretBuilder(record).editMetadata().withLabels(labels).endMetadata().build();
  }

  private static Map<String, String> orEmpty(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }
}
