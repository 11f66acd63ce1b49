package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.kube.MemberKubeconfig;
import dev.pier.model.KubeCredentials;
import org.junit.jupiter.api.Test;

class JoinKubeconfigTest {
  @Test
  void whatJoinWritesIsWhatPierAccepts() {
    String yaml = JoinKubeconfig.build("west", "https://10.0.0.1:6443", "Q0E=", "a.b.c");
    assertThat(MemberKubeconfig.parse(yaml, ""))
        .isEqualTo(new KubeCredentials("https://10.0.0.1:6443", "Q0E=", "a.b.c", "", ""));
    assertThat(JoinKubeconfig.read(yaml).token()).isEqualTo("a.b.c");
    // Without a CA the member is trusted through the JVM's trust store.
    assertThat(JoinKubeconfig.build("west", "https://west.example", "", "t").lines())
        .noneMatch(l -> l.contains("certificate-authority"));
  }

  @Test
  void aServerPierWouldRefuseIsRefusedBeforeAnythingIsWritten() {
    assertThatThrownBy(() -> JoinKubeconfig.build("west", "http://10.0.0.1:8080", "", "t"))
        .hasMessageContaining("must be an https URL");
    assertThat(JoinKubeconfig.read("users: {}")).isNull();
  }
}
