package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.service;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.cloud.EnsureResult;
import dev.pier.model.LbService;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A listener closed and opened again on the same address and port at once (a Service deleted and
 * created again, a port removed and added back) listens: the JDK releases a closed listening socket
 * only at its selector's next pass, after the close has been reported, so the first bind may find
 * the address still in use.
 */
@ExtendWith(VertxExtension.class)
class LocalProviderRebindTest {
  private static final String POOL = "127.243.0.0/24";
  private static final int ROUNDS = 40;

  private LocalLoadBalancerProvider provider;

  @BeforeEach
  void setUp(Vertx vertx) {
    provider =
        new LocalLoadBalancerProvider(
            vertx, new LocalProviderOptions().setPoolAddresses(List.of(POOL)));
  }

  @AfterEach
  void tearDown() throws Exception {
    provider.close().await(10, TimeUnit.SECONDS);
  }

  private static boolean listening(String ip, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(ip, port), 2_000);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void aServiceDeletedAndCreatedAgainAtOnceListensEveryTime() throws Exception {
    List<String> failures = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      int port = freePort();
      LbService svc = service("web", List.of(tcp(port, freePort())));
      ensure(svc);
      provider.ensureLoadBalancerDeleted("test", svc).await(10, TimeUnit.SECONDS);
      EnsureResult again = ensure(svc);
      String ip = again.status().ingress().get(0).ip();
      if (!again.warnings().isEmpty() || !listening(ip, port)) {
        failures.add("round " + round + ": " + again.warnings());
      }
      provider.ensureLoadBalancerDeleted("test", svc).await(10, TimeUnit.SECONDS);
    }
    assertThat(failures).as("rounds whose re-created listener did not listen").isEmpty();
  }

  @Test
  void aPortRemovedAndAddedBackAtOnceListensEveryTime() throws Exception {
    List<String> failures = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      int kept = freePort();
      int flapping = freePort();
      LbService both = service("api", List.of(tcp(kept, freePort()), tcp(flapping, freePort())));
      ensure(both);
      ensure(service("api", List.of(both.ports().get(0))));
      EnsureResult again = ensure(both);
      String ip = again.status().ingress().get(0).ip();
      if (!again.warnings().isEmpty() || !listening(ip, flapping)) {
        failures.add("round " + round + ": " + again.warnings());
      }
      provider.ensureLoadBalancerDeleted("test", both).await(10, TimeUnit.SECONDS);
    }
    assertThat(failures).as("rounds whose re-added port did not listen").isEmpty();
  }

  private EnsureResult ensure(LbService svc) throws Exception {
    return provider
        .ensureLoadBalancer("test", svc, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);
  }
}
