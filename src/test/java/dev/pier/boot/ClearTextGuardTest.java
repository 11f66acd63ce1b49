package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClearTextGuardTest {
  private static ConfigValues config(Map<String, String> env) {
    return new ConfigLoader(PierOptions.ALL, env::get).load(null);
  }

  private static void check(ConfigValues c) {
    ClearTextGuard.check(
        c, PierOptions.DNS_POWERDNS_URL, PierOptions.DNS_POWERDNS_ALLOW_HTTP, "the API key");
  }

  @Test
  void plainHttpToAnotherMachineIsRefusedNamingTheOptionTheValueAndTheWayOut() {
    ConfigValues c = config(Map.of("PIER_DNS_POWERDNS_URL", "http://pdns.dns.svc:8081"));
    assertThatThrownBy(() -> check(c))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PIER_DNS_POWERDNS_URL")
        .hasMessageContaining("'http://pdns.dns.svc:8081'")
        .hasMessageContaining("the API key in clear text")
        .hasMessageContaining("dns.powerdns.allowHttp: true");
  }

  @Test
  void httpsLoopbackOrAnExplicitAllowPass() {
    for (String url :
        new String[] {
          "https://pdns.dns.svc:8081",
          "http://127.0.0.1:8081",
          "http://localhost:8081",
          "http://[::1]:8081",
          "http://127.1.2.3"
        }) {
      assertThatCode(() -> check(config(Map.of("PIER_DNS_POWERDNS_URL", url))))
          .as(url)
          .doesNotThrowAnyException();
    }
    assertThatCode(
            () ->
                check(
                    config(
                        Map.of(
                            "PIER_DNS_POWERDNS_URL", "http://pdns.dns.svc:8081",
                            "PIER_DNS_POWERDNS_ALLOW_HTTP", "true"))))
        .doesNotThrowAnyException();
  }

  @Test
  void loopbackIsDecidedByNameWithoutResolving() {
    assertThat(ClearTextGuard.loopback("127.0.0.1")).isTrue();
    assertThat(ClearTextGuard.loopback("app.localhost")).isTrue();
    assertThat(ClearTextGuard.loopback("127.example.com")).isFalse();
    assertThat(ClearTextGuard.loopback("10.0.0.1")).isFalse();
    assertThat(ClearTextGuard.loopback("")).isFalse();
  }
}
