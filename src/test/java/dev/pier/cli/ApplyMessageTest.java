package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class ApplyMessageTest {
  @Test
  void anAnswerIsItsCodeAndMessage() {
    KubernetesClientException e =
        new KubernetesClientException(
            new StatusBuilder().withCode(403).withMessage("namespaces is forbidden").build());
    assertThat(Apply.message(e)).isEqualTo("403 namespaces is forbidden");
  }

  @Test
  void aRequestWithoutAnAnswerSaysWhy() {
    KubernetesClientException e =
        new KubernetesClientException(
            "Operation: [get]  for kind: [Namespace]  with name: [pier]  failed.",
            new IOException("request failed", new ConnectException("Connection refused")));
    assertThat(Apply.message(e))
        .startsWith("Operation: [get]")
        .endsWith("(java.net.ConnectException: Connection refused)");
  }
}
