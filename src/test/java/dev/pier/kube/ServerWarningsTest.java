package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.CapturedLog;
import dev.pier.testkit.KubeApiServer;
import dev.pier.testkit.RealKubeApiServer;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a current API server warns about reaches Pier's log, once per text: here the deprecated
 * core/v1 Endpoints (deprecated since 1.33), which Pier itself no longer uses.
 */
@RealKubeApiServer
class ServerWarningsTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void aWarningOfTheServerIsLoggedOncePerText(KubeApiServer kube) {
    String ns = kube.createNamespace("warnings");
    AsyncKubeApi api = new AsyncKubeApi(kube.client());
    Context ctx = vertx.getOrCreateContext();
    try (CapturedLog log = CapturedLog.of(ServerWarnings.class)) {
      for (String name : new String[] {"a", "b", "c"}) {
        api.post(ctx, AsyncKubeApi.corePath(ns, "endpoints", null), endpoints(name)).await();
      }
      api.get(ctx, AsyncKubeApi.corePath(ns, "configmaps", null)).await();

      String text = log.text();
      assertThat(text.lines().filter(l -> l.startsWith("WARN ")))
          .as(text)
          .singleElement()
          .asString()
          .contains("POST /api/v1/namespaces/" + ns + "/endpoints")
          .contains("Endpoints is deprecated");
    }
  }

  private static JsonObject endpoints(String name) {
    return new JsonObject().put("metadata", new JsonObject().put("name", name));
  }
}
