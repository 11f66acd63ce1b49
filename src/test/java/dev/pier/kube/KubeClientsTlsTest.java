package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

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
}
