package dev.pier.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A compatibility twin: a subclass of a test class that runs its tests again against the oldest
 * Kubernetes release Pier supports ({@link KubeApiServer#OLDEST_KUBERNETES_VERSION}, from {@code
 * $PIER_KUBE_OLDEST_BIN_DIR}), beside the rest of the suite, whose servers are the current release.
 * Every server the class starts while it runs is of that release. Not inherited: the class it
 * extends still runs against the current release. Kept to what differs between releases: the
 * load-balancer lifecycle, node sync, federation propagation and DNS, and the test kit itself.
 *
 * <pre>{@code
 * @OldestKubernetes
 * class NodeSyncOnOldestTest extends NodeSyncTest {}
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("compat")
public @interface OldestKubernetes {}
