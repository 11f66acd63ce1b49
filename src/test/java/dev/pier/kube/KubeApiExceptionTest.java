package dev.pier.kube;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KubeApiExceptionTest {
  @Test
  void anApplyConflictNamesEachFieldAndItsManager() {
    String body =
        """
        {"kind":"Status","status":"Failure","reason":"Conflict","code":409,
         "message":"Apply failed with 1 conflict: conflict with \\"kube-vip\\" using v1: .spec.sessionAffinity",
         "details":{"causes":[{"reason":"FieldManagerConflict",
           "message":"conflict with \\"kube-vip\\" using v1","field":".spec.sessionAffinity"}]}}
        """;
    assertThat(KubeApiException.fieldConflicts(body))
        .containsExactly(".spec.sessionAffinity (conflict with \"kube-vip\" using v1)");
  }

  @Test
  void anyOtherFailureNamesNoField() {
    assertThat(KubeApiException.fieldConflicts(null)).isEmpty();
    assertThat(KubeApiException.fieldConflicts("not json")).isEmpty();
    assertThat(
            KubeApiException.fieldConflicts(
                "{\"reason\":\"Conflict\",\"message\":\"the object has been modified\"}"))
        .isEmpty();
  }
}
