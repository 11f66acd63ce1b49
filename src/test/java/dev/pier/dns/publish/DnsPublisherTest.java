package dev.pier.dns.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.policy.ServiceFilter;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DnsPublisherTest {
  private static DnsPublisher publisher(DnsOptions options) {
    return new DnsPublisher(null, options, new ServiceFilter(Set.of()), null);
  }

  private static Service svc(String type, Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("web")
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withType(type)
        .endSpec()
        .build();
  }

  @Test
  void everyLoadBalancedServiceUnlessOptedOut() {
    DnsPublisher p = publisher(new DnsOptions().setZoneName("example.com"));
    assertThat(p.wantsDns("kubernetes", svc("LoadBalancer", Map.of()))).isTrue();
    assertThat(
            p.wantsDns("kubernetes", svc("LoadBalancer", Map.of(DnsPublisher.ANNOTATION, "false"))))
        .isFalse();
    assertThat(p.wantsDns("kubernetes", svc("ClusterIP", Map.of()))).isFalse();
    assertThat(p.wantsDns("kubernetes", null)).isFalse();
  }

  @Test
  void optInTakesOnlyAnnotatedServices() {
    DnsPublisher p = publisher(new DnsOptions().setZoneName("example.com").setOptIn(true));
    assertThat(p.wantsDns("kubernetes", svc("LoadBalancer", Map.of()))).isFalse();
    assertThat(
            p.wantsDns("kubernetes", svc("LoadBalancer", Map.of(DnsPublisher.ANNOTATION, "true"))))
        .isTrue();
    assertThat(p.wantsDns("kubernetes", svc("ClusterIP", Map.of(DnsPublisher.ANNOTATION, "true"))))
        .isFalse();
  }

  @Test
  void theSuffixDefaultsToTheZoneName() {
    assertThat(publisher(new DnsOptions().setZoneName("Example.com")).names().suffix())
        .isEqualTo("example.com.");
    assertThat(
            publisher(new DnsOptions().setZoneName("example.com").setSuffix("k8s.example.com"))
                .names()
                .suffix())
        .isEqualTo("k8s.example.com.");
  }

  @Test
  void namesOfPiersFormMapBackToTheirService() {
    DnsPublisher p = publisher(new DnsOptions().setZoneName("example.com").setFederation("fed"));
    assertThat(p.serviceOf("web.ns.fed.svc.example.com.")).isEqualTo("ns/web");
    assertThat(p.serviceOf("web.ns.fed.svc.z.r.example.com.")).isEqualTo("ns/web");
    assertThat(p.serviceOf("web.ns.other.svc.example.com.")).isNull();
    assertThat(p.serviceOf("www.example.com.")).isNull();
  }

  @Test
  void theDomainFilterLimitsWhereNamesGo() {
    assertThat(DnsPublisher.manages("example.com.", List.of(), "a.example.com.")).isTrue();
    assertThat(DnsPublisher.manages("example.com.", List.of(), "a.example.org.")).isFalse();
    List<String> filter = List.of("eu.example.com");
    assertThat(DnsPublisher.manages("example.com.", filter, "web.ns.p.svc.eu.example.com."))
        .isTrue();
    assertThat(DnsPublisher.manages("example.com.", filter, "web.ns.p.svc.example.com.")).isFalse();
  }
}
