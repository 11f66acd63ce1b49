package dev.pier.config;

/**
 * A bad part of a structured option value, such as one field of one list item: carries where in the
 * value it is ({@code [2].namespaces}), the bad value and what is allowed there, so that the loader
 * names {@code local.pools[2].namespaces} rather than the whole option.
 */
public final class InvalidItemException extends IllegalArgumentException {
  private final String subPath;
  private final String value;
  private final String allowed;

  /**
   * @param subPath appended to the option's path: {@code [2]}, {@code [2].namespaces}
   * @param value the bad value as written
   * @param allowed what is allowed there, completing "must be ..."
   */
  public InvalidItemException(String subPath, String value, String allowed) {
    super(subPath + ": invalid value '" + value + "': must be " + allowed);
    this.subPath = subPath;
    this.value = value;
    this.allowed = allowed;
  }

  public String subPath() {
    return subPath;
  }

  public String value() {
    return value;
  }

  public String allowed() {
    return allowed;
  }
}
