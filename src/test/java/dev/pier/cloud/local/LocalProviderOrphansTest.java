package dev.pier.cloud.local;

import static dev.pier.cloud.local.LbTestSupport.freePort;
import static dev.pier.cloud.local.LbTestSupport.key;
import static dev.pier.cloud.local.LbTestSupport.node;
import static dev.pier.cloud.local.LbTestSupport.service;
import static dev.pier.cloud.local.LbTestSupport.statusWithIp;
import static dev.pier.cloud.local.LbTestSupport.tcp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancers;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbService;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The local provider lists the load balancers of this process for the orphan sweep: every address
 * it holds for the cluster, restored from Service status or ensured, with the Service's uid and
 * key. Deleting one closes its listeners and releases its address, unless the key now belongs to
 * another Service (another uid).
 */
@ExtendWith(VertxExtension.class)
class LocalProviderOrphansTest {
  private static final String POOL = "127.242.0.0/24";

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

  private OwnedLoadBalancers owned() {
    Optional<OwnedLoadBalancers> owned = provider.ownedLoadBalancers();
    assertThat(owned).as("the local provider can list what it owns").isPresent();
    return owned.get();
  }

  private static boolean listening(String ip, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(ip, port), 2_000);
      return true;
    } catch (ConnectException e) {
      return false;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void aBalancerWhoseServiceIsGoneIsListedAndSweptTheLiveOneStays() throws Exception {
    int port = freePort();
    LbService live = service("live", List.of(tcp(port, freePort())));
    LbService gone = service("gone", List.of(tcp(port, freePort())));
    LbService restored =
        service("restored", List.of(tcp(port, freePort())), null, statusWithIp("127.242.0.9"));
    provider
        .initialize(new ClusterIdentity("test", "kube-system-uid"), List.of(restored))
        .await(10, TimeUnit.SECONDS);
    String liveIp =
        provider
            .ensureLoadBalancer("test", live, List.of(node("n1", "127.0.0.1")))
            .await(10, TimeUnit.SECONDS)
            .status()
            .ingress()
            .get(0)
            .ip();
    String goneIp =
        provider
            .ensureLoadBalancer("test", gone, List.of(node("n1", "127.0.0.1")))
            .await(10, TimeUnit.SECONDS)
            .status()
            .ingress()
            .get(0)
            .ip();
    assertThat(listening(goneIp, port)).isTrue();

    List<OwnedLoadBalancer> listed = owned().list("test").await(10, TimeUnit.SECONDS);
    assertThat(listed)
        .containsExactlyInAnyOrder(
            new OwnedLoadBalancer(liveIp, key("live").toString(), "uid-live", "test/default/live"),
            new OwnedLoadBalancer(goneIp, key("gone").toString(), "uid-gone", "test/default/gone"),
            new OwnedLoadBalancer(
                "127.242.0.9",
                key("restored").toString(),
                "uid-restored",
                "test/default/restored"));
    assertThat(owned().list("other").await(10, TimeUnit.SECONDS)).isEmpty();

    // What the sweeper does: delete every listed one whose Service uid is not in the cache.
    Set<String> cached = Set.of("uid-live");
    for (OwnedLoadBalancer lb : listed) {
      if (!cached.contains(lb.serviceUid())) {
        owned().delete("test", lb).await(10, TimeUnit.SECONDS);
      }
    }

    assertThat(owned().list("test").await(10, TimeUnit.SECONDS))
        .extracting(OwnedLoadBalancer::serviceUid)
        .containsExactly("uid-live");
    // The listener's socket closes on its event loop right after the deletion answers.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(listening(goneIp, port))
                    .as("the orphan's listener is closed")
                    .isFalse());
    assertThat(listening(liveIp, port)).as("the live Service's listener stays").isTrue();
    assertThat(provider.addressOf(key("gone")).await(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(provider.addressOf(key("restored")).await(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(provider.addressOf(key("live")).await(10, TimeUnit.SECONDS)).contains(liveIp);
  }

  @Test
  void aListingIsNotDeletedOnceTheKeyBelongsToAnotherService() throws Exception {
    int port = freePort();
    LbService first = service("web", List.of(tcp(port, freePort())));
    provider
        .ensureLoadBalancer("test", first, List.of(node("n1", "127.0.0.1")))
        .await(10, TimeUnit.SECONDS);
    OwnedLoadBalancer stale = owned().list("test").await(10, TimeUnit.SECONDS).get(0);
    // The Service is deleted and created again under the same name, with a new uid.
    provider.ensureLoadBalancerDeleted("test", first).await(10, TimeUnit.SECONDS);
    LbService again =
        new LbService(
            first.key(),
            "uid-web-2",
            first.ports(),
            null,
            "Cluster",
            0,
            "None",
            List.of(),
            java.util.Map.of(),
            List.of("IPv4"),
            dev.pier.model.LbStatus.EMPTY);
    String ip =
        provider
            .ensureLoadBalancer("test", again, List.of(node("n1", "127.0.0.1")))
            .await(10, TimeUnit.SECONDS)
            .status()
            .ingress()
            .get(0)
            .ip();

    owned().delete("test", stale).await(10, TimeUnit.SECONDS);

    assertThat(provider.addressOf(key("web")).await(10, TimeUnit.SECONDS)).contains(ip);
    assertThat(listening(ip, port)).as("the new Service's listener is untouched").isTrue();
  }
}
