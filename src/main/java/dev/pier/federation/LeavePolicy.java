package dev.pier.federation;

import dev.pier.model.FederationKeys;
import java.util.Map;

/**
 * What a member's leaving does to the copies Pier owns there, as its Secret said before it went
 * ({@link FederationKeys#LEAVE_POLICY_ANNOTATION}). Deleting copies is an explicit choice, never
 * the side effect of a Secret edit: without the annotation, or with a value Pier does not know, the
 * copies are orphaned.
 */
public enum LeavePolicy {
  /** The copies keep serving, without Pier's marks: nothing of the member's traffic is lost. */
  ORPHAN,
  /** The copies are deleted. */
  DELETE_COPIES;

  public static final String DELETE_COPIES_VALUE = "delete-copies";
  public static final String ORPHAN_VALUE = "orphan";

  /** The policy the annotations state; ORPHAN unless they say {@code delete-copies}. */
  public static LeavePolicy of(Map<String, String> annotations) {
    String v = annotations == null ? null : annotations.get(FederationKeys.LEAVE_POLICY_ANNOTATION);
    return v != null && DELETE_COPIES_VALUE.equals(v.trim()) ? DELETE_COPIES : ORPHAN;
  }

  /** Null when the annotation is absent or valid, else what is wrong with it. */
  public static String problem(Map<String, String> annotations) {
    String v = annotations == null ? null : annotations.get(FederationKeys.LEAVE_POLICY_ANNOTATION);
    if (v == null || v.trim().equals(ORPHAN_VALUE) || v.trim().equals(DELETE_COPIES_VALUE)) {
      return null;
    }
    return "annotation "
        + FederationKeys.LEAVE_POLICY_ANNOTATION
        + ": invalid value '"
        + v
        + "': must be "
        + ORPHAN_VALUE
        + " or "
        + DELETE_COPIES_VALUE
        + " (leaving orphans the copies until it is fixed)";
  }
}
