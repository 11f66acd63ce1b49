package dev.pier.federation;

import java.util.Map;

/** A member cluster as placement sees it: its name and the labels of its join Secret. */
public record MemberInfo(String name, Map<String, String> labels) {
  public MemberInfo {
    labels = labels == null ? Map.of() : Map.copyOf(labels);
  }
}
