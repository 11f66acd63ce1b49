package dev.pier.leader;

/**
 * A write or provider call was not made because this process no longer leads: not a failure of the
 * work, which runs again when this process leads.
 */
public final class NotLeadingException extends RuntimeException {
  public NotLeadingException(String what) {
    super("not the leader (any more): " + what + " not done", null, false, false);
  }
}
