package dev.pier.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.testkit.KubeApiServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What shipped RBAC files grant and what a user did, from an API server's audit log, both as {@code
 * group/resource[/subresource]:verb} and {@code nonResource:URL:verb}: the RBAC tests compare the
 * two for sufficiency (nothing denied, nothing used beyond the grant) and minimality (every grant
 * used).
 */
final class RbacAudit {
  private RbacAudit() {}

  /**
   * Minimality: {@code used} covers everything {@code granted} but {@code unused}, and none of
   * those (each was left out with a reason that holds on the test's API server).
   */
  static void assertUsedAllBut(
      Set<String> granted, Set<String> used, Set<String> unused, String where) {
    Set<String> expected = new TreeSet<>(granted);
    expected.removeAll(unused);
    assertThat(used).as("what Pier did in " + where).containsAll(expected);
    assertThat(used).as("granted but unused in " + where).doesNotContainAnyElementsOf(unused);
  }

  /** Every permission the ClusterRoles and Roles of these files grant. */
  static Set<String> granted(Path... files) {
    List<PolicyRule> rules = new ArrayList<>();
    for (Path file : files) {
      for (HasMetadata o : Manifests.objects(file)) {
        if (o instanceof ClusterRole r) {
          rules.addAll(r.getRules());
        } else if (o instanceof Role r) {
          rules.addAll(r.getRules());
        }
      }
    }
    Set<String> out = new TreeSet<>();
    for (PolicyRule rule : rules) {
      for (String verb : rule.getVerbs()) {
        for (String url : rule.getNonResourceURLs()) {
          out.add("nonResource:" + url + ":" + verb);
        }
        for (String group : rule.getApiGroups()) {
          for (String resource : rule.getResources()) {
            out.add(group + "/" + resource + ":" + verb);
          }
        }
      }
    }
    return out;
  }

  /**
   * What the user's requests used: resources as in {@link #granted}, and the non-resource URLs that
   * are not API discovery (which every authenticated user may read).
   */
  static Set<String> used(KubeApiServer kube, String user) throws IOException {
    return audit(kube, user)
        .map(
            e -> {
              JsonObject ref = e.getJsonObject("objectRef");
              if (ref == null) {
                String uri = e.getString("requestURI").replaceFirst("\\?.*", "");
                return uri.equals("/api") || uri.startsWith("/api/") || uri.startsWith("/apis")
                    ? null
                    : "nonResource:" + uri + ":" + e.getString("verb");
              }
              String resource = ref.getString("resource");
              if (ref.getString("subresource") != null) {
                resource += "/" + ref.getString("subresource");
              }
              return ref.getString("apiGroup", "") + "/" + resource + ":" + e.getString("verb");
            })
        .filter(s -> s != null)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The user's requests the API server answered 403, as "verb URI". */
  static List<String> denied(KubeApiServer kube, String user) throws IOException {
    return audit(kube, user)
        .filter(
            e -> e.getJsonObject("responseStatus", new JsonObject()).getInteger("code", 0) == 403)
        .map(e -> e.getString("verb") + " " + e.getString("requestURI"))
        .toList();
  }

  /**
   * The user's requests of a deprecated API, as "verb URI": the API server marks each in its audit
   * event with the annotation {@code k8s.io/deprecated} (and answers it with a Warning header).
   */
  static List<String> deprecated(KubeApiServer kube, String user) throws IOException {
    return audit(kube, user)
        .filter(
            e ->
                "true"
                    .equals(
                        e.getJsonObject("annotations", new JsonObject())
                            .getString("k8s.io/deprecated")))
        .map(e -> e.getString("verb") + " " + e.getString("requestURI"))
        .distinct()
        .toList();
  }

  private static Stream<JsonObject> audit(KubeApiServer kube, String user) throws IOException {
    return Files.readAllLines(kube.auditLogPath()).stream()
        .map(JsonObject::new)
        // Every stage: a watch without events yet is logged only as RequestReceived. Denials show
        // up as code 403 at ResponseComplete.
        .filter(e -> user.equals(e.getJsonObject("user").getString("username")));
  }
}
