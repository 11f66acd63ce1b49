package dev.pier.nodesync;

import dev.pier.testkit.OldestKubernetes;

/** {@link NodeSyncTest} against the oldest Kubernetes release Pier supports. */
@OldestKubernetes
class NodeSyncOnOldestTest extends NodeSyncTest {}
