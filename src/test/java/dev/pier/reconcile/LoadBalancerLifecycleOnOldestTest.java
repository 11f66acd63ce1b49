package dev.pier.reconcile;

import dev.pier.testkit.OldestKubernetes;

/** {@link LoadBalancerLifecycleTest} against the oldest Kubernetes release Pier supports. */
@OldestKubernetes
class LoadBalancerLifecycleOnOldestTest extends LoadBalancerLifecycleTest {}
