package dev.pier.model;

/**
 * Comparing resourceVersions. They are opaque to clients, but every API server Pier supports serves
 * etcd revisions, which grow; a version that is not a number is never called older.
 */
public final class ResourceVersions {
  private ResourceVersions() {}

  /**
   * Whether the cached version is older than the one Pier's own last write returned: the cache has
   * not seen that write yet, so deciding on it would undo or repeat the write.
   */
  public static boolean older(String cached, String written) {
    if (cached == null || written == null) {
      return false;
    }
    try {
      return Long.parseLong(cached) < Long.parseLong(written);
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
