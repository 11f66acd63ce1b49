package dev.pier.testkit;

/** {@link KubeApiServerTest} against the oldest Kubernetes release Pier supports. */
@OldestKubernetes
class KubeApiServerOnOldestTest extends KubeApiServerTest {
  KubeApiServerOnOldestTest(KubeApiServer kube) {
    super(kube);
  }
}
