package dev.pier.boot;

import dev.pier.config.ConfigValues;
import dev.pier.util.AnswerLimit;

/**
 * The limits on the answers of the providers' and DNS services' HTTP APIs, from {@code http.*}.
 * They are not a provider's own options: a cluster of {@code clusters} and a member joined through
 * a Secret read them from Pier's configuration like everything outside the provider sections.
 */
final class AnswerLimits {
  private AnswerLimits() {}

  /** One object's answer: {@code http.maxAnswerBytes}. */
  static AnswerLimit answer(ConfigValues config) {
    return new AnswerLimit(
        config.get(PierOptions.HTTP_MAX_ANSWER_BYTES), PierOptions.HTTP_MAX_ANSWER_BYTES.path());
  }

  /** A listing: {@code http.maxInventoryAnswerBytes}. */
  static AnswerLimit inventory(ConfigValues config) {
    return new AnswerLimit(
        config.get(PierOptions.HTTP_MAX_INVENTORY_ANSWER_BYTES),
        PierOptions.HTTP_MAX_INVENTORY_ANSWER_BYTES.path());
  }
}
