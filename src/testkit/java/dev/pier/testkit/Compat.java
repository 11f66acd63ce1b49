package dev.pier.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A compatibility test: besides the whole suite's run against the current Kubernetes release, the
 * build runs it again against the oldest release Pier supports (the surefire execution {@code
 * compat}, which sets {@code pier.kube.version}). Kept to what differs between releases: the
 * load-balancer lifecycle, node sync, federation propagation and DNS.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("compat")
public @interface Compat {}
