package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.ext.web.client.WebClientOptions;
import org.junit.jupiter.api.Test;

/**
 * The API server connections use BoringSSL on Linux (x86-64 and arm64, the platforms the jar
 * carries it for): under the C1-only JIT of conf/jvm.options the JDK's AES-GCM runs without its CPU
 * intrinsics. Every test against the real kube-apiserver then runs over it.
 */
class KubeClientsTlsTest {
  @Test
  void boringSslLoadsOnLinux() {
    String arch = System.getProperty("os.arch");
    if (System.getProperty("os.name").startsWith("Linux")
        && (arch.equals("amd64") || arch.equals("aarch64"))) {
      assertThat(KubeClients.usesOpenSsl()).isTrue();
    }
  }

  @Test
  void requestsAndWatchesBothUseBoringSslOverTls() {
    WebClientOptions requests = new WebClientOptions().setSsl(true);
    WebSocketClientOptions watches = new WebSocketClientOptions().setSsl(true);

    KubeClients.configure(requests, watches, true);

    assertThat(requests.getProtocolVersion()).isEqualTo(HttpVersion.HTTP_2);
    assertThat(requests.getSslEngineOptions()).isInstanceOf(OpenSSLEngineOptions.class);
    assertThat(watches.getSslEngineOptions()).isInstanceOf(OpenSSLEngineOptions.class);
  }

  @Test
  void theJdkTlsStaysWhenBoringSslIsOff() {
    WebClientOptions requests = new WebClientOptions().setSsl(true);
    WebSocketClientOptions watches = new WebSocketClientOptions().setSsl(true);

    KubeClients.configure(requests, watches, false);

    assertThat(requests.getSslEngineOptions() instanceof OpenSSLEngineOptions).isFalse();
    assertThat(watches.getSslEngineOptions() instanceof OpenSSLEngineOptions).isFalse();
  }
}
