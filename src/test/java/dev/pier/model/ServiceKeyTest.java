package dev.pier.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ServiceKeyTest {
  @Test
  void roundTripsThroughItsStringForm() {
    ServiceKey k = new ServiceKey("east", "ns", "web");
    assertThat(k.toString()).isEqualTo("east/ns/web");
    assertThat(ServiceKey.parse("east/ns/web")).isEqualTo(k);
    assertThat(k.objectKey()).isEqualTo("ns/web");
  }

  @Test
  void rejectsMalformedKeys() {
    for (String bad : new String[] {"", "a", "a/b", "/a/b", "a//b", "a/b/"}) {
      assertThatThrownBy(() -> ServiceKey.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
