package dev.pier.boot;

import com.hazelcast.config.Config;
import dev.pier.shards.ScaleOutOptions;

/** Pier's Hazelcast configuration of a replica, for tests outside {@code boot}. */
public final class ScaleOutHazelcast {
  private ScaleOutHazelcast() {}

  public static Config config(ScaleOutOptions options, String namespace) {
    return ScaleOutSetup.clusterManager(options, namespace).getConfig();
  }
}
