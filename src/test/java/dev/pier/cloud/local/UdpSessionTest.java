package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.model.ServiceRef;
import io.vertx.core.net.SocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which senders a UDP session relays back to its client. */
class UdpSessionTest {

  private static UdpSession session(String backendHost, int backendPort) {
    return new UdpSession(
        null,
        ServiceRef.of(LbTestSupport.key("dns"), "uid-dns"),
        "127.0.0.1:5000",
        "127.0.0.1",
        backendHost,
        backendPort,
        Duration.ofSeconds(60),
        (s, b) -> {},
        s -> {});
  }

  @Test
  void onlyTheBackendAddressAndPortAreAccepted() {
    UdpSession s = session("127.0.0.1", 30053);
    assertThat(s.fromBackend(SocketAddress.inetSocketAddress(30053, "127.0.0.1"))).isTrue();
    assertThat(s.fromBackend(SocketAddress.inetSocketAddress(30054, "127.0.0.1"))).isFalse();
    assertThat(s.fromBackend(SocketAddress.inetSocketAddress(30053, "127.0.0.2"))).isFalse();
    assertThat(s.fromBackend(null)).isFalse();
  }

  @Test
  void ipv6SendersAreComparedAsAddressesNotText() {
    UdpSession s = session("fd00::1", 30053);
    assertThat(s.fromBackend(SocketAddress.inetSocketAddress(30053, "fd00:0:0:0:0:0:0:1")))
        .isTrue();
    assertThat(s.fromBackend(SocketAddress.inetSocketAddress(30053, "fd00::2"))).isFalse();
  }
}
