package dev.pier.dns.publish;

import dev.pier.testkit.OldestKubernetes;

/** {@link DnsLifecycleTest} against the oldest Kubernetes release Pier supports. */
@OldestKubernetes
class DnsLifecycleOnOldestTest extends DnsLifecycleTest {}
