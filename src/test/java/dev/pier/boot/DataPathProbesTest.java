package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.util.Cidr;
import dev.pier.util.Ip;
import java.util.List;
import org.junit.jupiter.api.Test;

class DataPathProbesTest {
  private static List<String> cidrs(String pool) {
    return DataPathProbes.cidrs(pool).stream().map(c -> c.address() + "/" + c.prefix()).toList();
  }

  @Test
  void aCidrIsItself() {
    assertThat(cidrs("127.240.1.0/28")).containsExactly("127.240.1.0/28");
    assertThat(cidrs("fd00::/64")).containsExactly(Ip.parse("fd00::") + "/64");
  }

  @Test
  void aRangeIsTheFewestCidrsCoveringExactlyIt() {
    assertThat(cidrs("10.0.0.10-10.0.0.20"))
        .containsExactly("10.0.0.10/31", "10.0.0.12/30", "10.0.0.16/30", "10.0.0.20/32");
    assertThat(cidrs("10.0.0.0-10.0.0.255")).containsExactly("10.0.0.0/24");
    assertThat(cidrs("0.0.0.0-255.255.255.255")).containsExactly("0.0.0.0/0");
    assertThat(cidrs("10.0.0.7-10.0.0.7")).containsExactly("10.0.0.7/32");
  }

  @Test
  void whatIsNeitherIsNothing() {
    assertThat(cidrs("pool")).isEmpty();
    assertThat(cidrs("10.0.0.1-fd00::1")).isEmpty();
    assertThat(DataPathProbes.cidrs("10.0.0.0/40")).isEmpty();
    assertThat(Cidr.parse("10.0.0.0/8")).isNotNull();
  }
}
