package dev.pier.testkit;

import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Starts one {@link KubeApiServer} per test class, closes it after the class, and resolves {@link
 * KubeApiServer} parameters. Configured by {@link RealKubeApiServer} on the class, if present. When
 * a test fails, the server's directory (logs, audit log) is kept and its path logged on close.
 */
public final class KubeApiServerExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver, TestWatcher {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(KubeApiServerExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    boolean oldest =
        context
            .getTestClass()
            .map(type -> type.isAnnotationPresent(OldestKubernetes.class))
            .orElse(false);
    KubeApiServer.runClassOn(oldest ? KubeApiServer.OLDEST_KUBERNETES_VERSION : null);
    server(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (context
        .getTestClass()
        .filter(type -> type.isAnnotationPresent(OldestKubernetes.class))
        .isPresent()) {
      KubeApiServer.runClassOn(null);
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == KubeApiServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return server(context);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    Holder holder = context.getStore(NAMESPACE).get(Holder.class, Holder.class);
    if (holder != null) {
      holder.server().keepDirectoryOnClose();
    }
  }

  private static KubeApiServer server(ExtensionContext context) {
    ExtensionContext classContext = classContext(context);
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(Holder.class, key -> new Holder(start(classContext)), Holder.class)
        .server();
  }

  /** The nearest class-level context; a {@code @Nested} class shares its outer class's server. */
  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext current = context;
    while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
      current = current.getParent().get();
    }
    return current;
  }

  private static KubeApiServer start(ExtensionContext classContext) {
    KubeApiServer.Builder builder = KubeApiServer.builder();
    Optional<RealKubeApiServer> config =
        classContext
            .getTestClass()
            .flatMap(type -> AnnotationSupport.findAnnotation(type, RealKubeApiServer.class));
    config.ifPresent(
        annotation -> {
          for (RealKubeApiServer.User user : annotation.users()) {
            builder.withUser(user.token(), user.name(), user.groups());
          }
          for (String flag : annotation.flags()) {
            builder.withFlag(flag);
          }
          if (annotation.auditLog()) {
            builder.withAuditLog();
          }
        });
    return builder.start();
  }

  private record Holder(KubeApiServer server) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      server.close();
    }
  }
}
