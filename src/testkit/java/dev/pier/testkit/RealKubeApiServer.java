package dev.pier.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the test class against one real kube-apiserver (see {@link KubeApiServer}), started before
 * the class and stopped after it, injected as a {@link KubeApiServer} parameter into constructors,
 * {@code @BeforeAll}/{@code @BeforeEach} and test methods. Tagged {@code kube}; inherited, so that
 * a subclass annotated {@link OldestKubernetes} runs the same tests on the same kind of server.
 *
 * <pre>{@code
 * @RealKubeApiServer(auditLog = true, users = @RealKubeApiServer.User(token = "pier-token", name = "pier"))
 * class ControllerIT {
 *   @Test
 *   void reconciles(KubeApiServer kube) { ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag("kube")
@ExtendWith(KubeApiServerExtension.class)
public @interface RealKubeApiServer {

  /** Users besides the admin, see {@link KubeApiServer.Builder#withUser}. */
  User[] users() default {};

  /** Extra kube-apiserver flags, see {@link KubeApiServer.Builder#withFlag}. */
  String[] flags() default {};

  /** Whether to write a Metadata-level audit log, see {@link KubeApiServer#auditLogPath()}. */
  boolean auditLog() default false;

  /** A token-file user. */
  @Target({})
  @Retention(RetentionPolicy.RUNTIME)
  @interface User {
    String token();

    String name();

    String[] groups() default {};
  }
}
