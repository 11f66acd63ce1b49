package dev.pier.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each request of a member's provider, vetted on the addresses its host resolves to then. */
class EgressTest {
  private final List<String> lookedUp = new ArrayList<>();

  private Egress egress(Map<String, List<String>> dns) {
    return new Egress(
        EgressPolicy.DEFAULT,
        host -> {
          lookedUp.add(host);
          List<InetAddress> out = new ArrayList<>();
          for (String a : dns.getOrDefault(host, List.of())) {
            try {
              out.add(InetAddress.getByName(a));
            } catch (Exception e) {
              return Future.failedFuture(e);
            }
          }
          return Future.succeededFuture(out);
        },
        "webhook.url");
  }

  private static RequestOptions request(String url) {
    return new RequestOptions().setAbsoluteURI(url);
  }

  private static String refusal(Future<RequestOptions> vetted) {
    assertThat(vetted.failed()).isTrue();
    assertThat(vetted.cause()).isInstanceOf(Egress.Refused.class);
    return vetted.cause().getMessage();
  }

  @Test
  void aNameResolvingToTheMetadataAddressIsRefused() {
    Egress egress = egress(Map.of("lb.example", List.of("169.254.169.254")));
    assertThat(refusal(egress.vet(request("https://lb.example/pier/v1/get"))))
        .startsWith("webhook.url: host lb.example: 169.254.169.254 is a link-local address");
  }

  @Test
  void aNameResolvingToAPrivateAddressIsRefused() {
    Egress egress = egress(Map.of("lb.example", List.of("10.0.0.1")));
    assertThat(refusal(egress.vet(request("https://lb.example/get"))))
        .contains("10.0.0.1 is a private address");
  }

  @Test
  void oneRefusedAddressAmongSeveralRefusesTheRequest() {
    Egress egress = egress(Map.of("lb.example", List.of("203.0.113.7", "127.0.0.1")));
    assertThat(refusal(egress.vet(request("https://lb.example/get"))))
        .contains("127.0.0.1 is a loopback address");
  }

  @Test
  void aPublicAddressIsConnectedToItselfKeepingTheHostForTlsAndTheHostHeader() {
    Egress egress = egress(Map.of("lb.example", List.of("203.0.113.7")));
    Future<RequestOptions> vetted = egress.vet(request("https://lb.example:8443/get"));
    assertThat(vetted.succeeded()).isTrue();
    RequestOptions r = vetted.result();
    assertThat(r.getHost()).isEqualTo("lb.example");
    assertThat(r.getPort()).isEqualTo(8443);
    SocketAddress server = (SocketAddress) r.getServer();
    assertThat(server.hostAddress()).isEqualTo("203.0.113.7");
    assertThat(server.port()).isEqualTo(8443);
  }

  @Test
  void aNameIsResolvedAgainForEachRequest() {
    Map<String, List<String>> dns = new java.util.HashMap<>();
    dns.put("lb.example", List.of("203.0.113.7"));
    Egress egress = egress(dns);
    assertThat(egress.vet(request("https://lb.example/get")).succeeded()).isTrue();
    dns.put("lb.example", List.of("127.0.0.1"));
    assertThat(refusal(egress.vet(request("https://lb.example/get"))))
        .contains("127.0.0.1 is a loopback address");
    assertThat(lookedUp).containsExactly("lb.example", "lb.example");
  }

  @Test
  void aLiteralAddressIsCheckedWithoutALookup() {
    Egress egress = egress(Map.of());
    assertThat(refusal(egress.vet(request("https://127.0.0.1:9443/get"))))
        .startsWith("webhook.url: 127.0.0.1 is a loopback address");
    assertThat(refusal(egress.vet(request("https://[fe80::1]/get"))))
        .contains("fe80::1 is a link-local address");
    assertThat(lookedUp).isEmpty();
  }

  @Test
  void aNameThatDoesNotResolveIsRefused() {
    assertThat(refusal(egress(Map.of()).vet(request("https://nowhere.example/get"))))
        .contains("nowhere.example has no address");
  }

  @Test
  void theOperatorsOwnProvidersAreNotVetted() {
    RequestOptions r = request("http://127.0.0.1:1/get");
    assertThat(Egress.OPEN.vet(r).result()).isSameAs(r);
    assertThat(r.getServer()).isNull();
  }
}
