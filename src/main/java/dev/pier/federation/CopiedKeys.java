package dev.pier.federation;

import dev.pier.model.FederationKeys;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The label and annotation keys Pier copied from a host Service onto a member copy, kept on the
 * copy as {@link FederationKeys#COPIED_KEYS_ANNOTATION}: {@code labels=a,b;annotations=c}. A copy
 * without it (written before Pier kept it) counts as having none, so no key of it is ever removed:
 * unknown is never taken for Pier's own.
 */
public record CopiedKeys(Set<String> labels, Set<String> annotations) {
  public CopiedKeys {
    labels = Set.copyOf(labels);
    annotations = Set.copyOf(annotations);
  }

  static String encode(Set<String> labels, Set<String> annotations) {
    return "labels="
        + String.join(",", new TreeSet<>(labels))
        + ";annotations="
        + String.join(",", new TreeSet<>(annotations));
  }

  /** The keys a copy's annotations say Pier copied; none when it does not say. */
  static CopiedKeys of(Map<String, String> annotations) {
    String v = annotations.get(FederationKeys.COPIED_KEYS_ANNOTATION);
    Set<String> labels = new TreeSet<>();
    Set<String> notes = new TreeSet<>();
    if (v != null) {
      for (String part : v.split(";")) {
        int eq = part.indexOf('=');
        if (eq < 0) {
          continue;
        }
        Set<String> into =
            switch (part.substring(0, eq).trim()) {
              case "labels" -> labels;
              case "annotations" -> notes;
              default -> null;
            };
        if (into == null) {
          continue;
        }
        for (String k : part.substring(eq + 1).split(",")) {
          if (!k.isBlank()) {
            into.add(k.trim());
          }
        }
      }
    }
    return new CopiedKeys(labels, notes);
  }
}
