package dev.pier.cloud.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.cloud.ProviderException;
import dev.pier.model.LbIngress;
import dev.pier.model.LbPort;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import dev.pier.model.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which addresses a Service gets per IP family, without listeners or an event loop. */
class AddressChoiceTest {

  private static final ServiceKey KEY = new ServiceKey("c", "ns", "svc");
  private static final String SECOND = AddressPool.secondFamilyKey(KEY.toString());
  private static final List<String> V4_FIRST = List.of("IPv4", "IPv6");

  private final AddressPool pool = new AddressPool(List.of("10.0.0.0/30", "fd00::/126"));
  private final AddressChoice choice = new AddressChoice(pool);

  private static LbService service(
      String policy, List<String> families, Map<String, String> annotations) {
    return service(policy, families, annotations, null, LbStatus.EMPTY);
  }

  private static LbService service(
      String policy,
      List<String> families,
      Map<String, String> annotations,
      String loadBalancerIp,
      LbStatus status) {
    return new LbService(
        KEY,
        "uid-1",
        List.of(new LbPort("http", "TCP", 80, 30080)),
        loadBalancerIp,
        "Cluster",
        0,
        "None",
        List.of(),
        annotations,
        families,
        status,
        policy);
  }

  private static LbStatus status(String... ips) {
    List<LbIngress> ingress = new ArrayList<>();
    for (String ip : ips) {
      ingress.add(new LbIngress(ip, null, "Proxy", List.of()));
    }
    return new LbStatus(ingress);
  }

  private static Map<String, String> requesting(String ips) {
    return Map.of(LocalAnnotations.LOAD_BALANCER_IPS, ips);
  }

  @Test
  void singleStackGetsOneAddress() {
    assertThat(choice.choose(service("SingleStack", List.of("IPv4"), Map.of())))
        .containsExactly("10.0.0.1");
    assertThat(pool.lookup(SECOND)).isEmpty();
  }

  @Test
  void dualStackGetsOneAddressPerFamilyInTheServiceOrder() {
    List<String> ips = choice.choose(service("PreferDualStack", List.of("IPv6", "IPv4"), Map.of()));

    assertThat(ips).containsExactly("fd00::1", "10.0.0.1");
    assertThat(pool.lookup(KEY.toString())).contains("fd00::1");
    assertThat(pool.lookup(SECOND)).contains("10.0.0.1");
    assertThat(pool.allocatedCount()).isEqualTo(1);
  }

  @Test
  void preferDualStackServesTheOnlyFamilyItsPoolsHold() {
    AddressChoice v4Only = new AddressChoice(new AddressPool(List.of("10.0.0.0/30")));

    assertThat(v4Only.choose(service("PreferDualStack", V4_FIRST, Map.of())))
        .containsExactly("10.0.0.1");
  }

  @Test
  void requireDualStackWithoutAPoolOfOneFamilyIsInvalid() {
    AddressChoice v4Only = new AddressChoice(new AddressPool(List.of("10.0.0.0/30")));

    assertThatThrownBy(() -> v4Only.choose(service("RequireDualStack", V4_FIRST, Map.of())))
        .isInstanceOfSatisfying(
            ProviderException.InvalidInput.class,
            e -> assertThat(e.field()).isEqualTo("spec.ipFamilyPolicy"))
        .hasMessageContaining("no address pool of IPv6 that namespace ns may use");
  }

  @Test
  void anIpv4AndAnIpv6RequestedMakeADualStackService() {
    LbService svc = service(null, List.of("IPv4"), requesting("fd00::2, 10.0.0.2"));

    assertThat(choice.choose(svc)).containsExactly("10.0.0.2", "fd00::2");
  }

  @Test
  void twoRequestedAddressesOfOneFamilyAreInvalid() {
    LbService svc = service(null, List.of("IPv4"), requesting("10.0.0.1,10.0.0.2"));

    assertThatThrownBy(() -> choice.choose(svc))
        .isInstanceOf(ProviderException.InvalidInput.class)
        .hasMessageContaining("two IPv4 addresses; give at most one per IP family");
  }

  @Test
  void aRequestedAddressOfNoneOfTheServiceFamiliesIsInvalid() {
    LbService svc = service("SingleStack", List.of("IPv4"), requesting("fd00::2"));

    assertThatThrownBy(() -> choice.choose(svc))
        .isInstanceOf(ProviderException.InvalidInput.class)
        .hasMessageContaining("no address of the Service's IP families [IPv4]");
  }

  @Test
  void aRequestedAddressOutsideThePoolsIsInvalid() {
    LbService svc = service(null, List.of("IPv4"), requesting("192.168.0.1"));

    assertThatThrownBy(() -> choice.choose(svc))
        .isInstanceOf(ProviderException.InvalidInput.class)
        .hasMessageContaining("is outside the address pools");
  }

  @Test
  void loadBalancerIpIsRequestedForItsOwnFamilyOnly() {
    LbService svc = service("PreferDualStack", V4_FIRST, Map.of(), "10.0.0.2", LbStatus.EMPTY);

    assertThat(choice.choose(svc)).containsExactly("10.0.0.2", "fd00::1");
  }

  @Test
  void exhaustedSecondFamilyLeavesPreferDualStackOnTheFirst() {
    AddressPool small = new AddressPool(List.of("10.0.0.0/30", "fd00::/127"));
    small.allocate("c/ns/a", "uid-a", "fd00::");
    small.allocate("c/ns/b", "uid-b", "fd00::1");
    AddressChoice choosing = new AddressChoice(small);

    assertThat(choosing.choose(service("PreferDualStack", V4_FIRST, Map.of())))
        .containsExactly("10.0.0.1");
    assertThat(small.lookup(SECOND)).isEmpty();
    assertThatThrownBy(() -> choosing.choose(service("RequireDualStack", V4_FIRST, Map.of())))
        .isInstanceOf(ProviderException.Retry.class);
  }

  @Test
  void goingSingleStackReleasesTheSecondFamily() {
    choice.choose(service("PreferDualStack", V4_FIRST, Map.of()));

    assertThat(choice.choose(service("SingleStack", List.of("IPv4"), Map.of())))
        .containsExactly("10.0.0.1");
    assertThat(pool.lookup(SECOND)).isEmpty();
    assertThat(pool.holder("fd00::1")).isEmpty();
  }

  @Test
  void theAddressOfTheStatusIsPreferred() {
    LbService svc = service("SingleStack", List.of("IPv4"), Map.of(), null, status("10.0.0.2"));

    assertThat(choice.choose(svc)).containsExactly("10.0.0.2");
  }

  @Test
  void restoreKeepsOneStatusAddressPerFamilyInThePools() {
    LbService svc =
        service(
            "PreferDualStack",
            V4_FIRST,
            Map.of(),
            null,
            status("192.168.0.1", "10.0.0.2", "10.0.0.1", "fd00::3"));

    assertThat(choice.restore(svc)).isEqualTo(2);
    assertThat(pool.lookup(KEY.toString())).contains("10.0.0.2");
    assertThat(pool.lookup(SECOND)).contains("fd00::3");
    assertThat(pool.uid(KEY.toString())).contains("uid-1");
  }

  @Test
  void restoreSkipsAnAddressAnotherServiceHolds() {
    pool.allocate("c/ns/other", "uid-2", "10.0.0.2");

    assertThat(choice.restore(service(null, List.of("IPv4"), Map.of(), null, status("10.0.0.2"))))
        .isZero();
    assertThat(pool.holder("10.0.0.2")).contains("c/ns/other");
  }
}
