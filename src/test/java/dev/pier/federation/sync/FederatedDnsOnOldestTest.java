package dev.pier.federation.sync;

import dev.pier.testkit.OldestKubernetes;

/** {@link FederatedDnsTest} against the oldest Kubernetes release Pier supports. */
@OldestKubernetes
class FederatedDnsOnOldestTest extends FederatedDnsTest {}
