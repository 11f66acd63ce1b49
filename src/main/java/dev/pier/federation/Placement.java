package dev.pier.federation;

import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which members a host Service goes to: every member unless {@code pier.dev/clusters} names some
 * (names that are not members select nothing) or {@code pier.dev/cluster-selector} selects by the
 * members' labels; with both, the members both pick. An annotation that is blank counts as absent.
 */
public final class Placement {
  private Placement() {}

  /**
   * @param clusters the chosen members, by name
   * @param problem why the Service goes nowhere because of a bad annotation; null when fine
   */
  public record Result(SortedSet<String> clusters, String problem) {
    public Result {
      clusters = Collections.unmodifiableSortedSet(new TreeSet<>(clusters));
    }
  }

  public static Result of(Service host, Collection<MemberInfo> members) {
    Map<String, String> annotations =
        host.getMetadata() == null || host.getMetadata().getAnnotations() == null
            ? Map.of()
            : host.getMetadata().getAnnotations();
    String names = annotations.get(FederationKeys.CLUSTERS_ANNOTATION);
    String selectorText = annotations.get(FederationKeys.CLUSTER_SELECTOR_ANNOTATION);
    LabelSelector selector = null;
    if (selectorText != null && !selectorText.isBlank()) {
      try {
        selector = LabelSelector.parse(selectorText);
      } catch (IllegalArgumentException e) {
        return new Result(
            new TreeSet<>(),
            "annotation "
                + FederationKeys.CLUSTER_SELECTOR_ANNOTATION
                + "='"
                + selectorText
                + "' is not a label selector: "
                + e.getMessage());
      }
    }
    Set<String> named =
        names == null || names.isBlank()
            ? null
            : Arrays.stream(names.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
    TreeSet<String> chosen = new TreeSet<>();
    for (MemberInfo m : members) {
      if ((named == null || named.contains(m.name()))
          && (selector == null || selector.matches(m.labels()))) {
        chosen.add(m.name());
      }
    }
    return new Result(chosen, null);
  }
}
