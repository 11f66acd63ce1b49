package dev.pier.policy;

import dev.pier.model.LbNode;
import dev.pier.model.Views;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Which nodes a load balancer sends traffic to. {@link #STABLE} is upstream's modern set
 * (KEP-3458): every node not being deleted, not excluded by label and not tainted for autoscaler
 * deletion; readiness is left to health checks. {@link #LEGACY} adds the seed's predicates: Ready,
 * schedulable, and no master role label.
 */
public enum NodeEligibility implements Predicate<Node> {
  STABLE {
    @Override
    public boolean test(Node node) {
      return notDeleted(node) && included(node) && notTaintedForDeletion(node);
    }
  },
  LEGACY {
    @Override
    public boolean test(Node node) {
      return STABLE.test(node) && ready(node) && schedulable(node) && notMaster(node);
    }
  };

  /** The name of the default predicate set, as configured ({@code nodes.predicates}). */
  public static final String DEFAULT_NAME = "stable";

  public static final String EXCLUDE_LABEL =
      "node.kubernetes.io/exclude-from-external-load-balancers";
  public static final String AUTOSCALER_TAINT = "ToBeDeletedByClusterAutoscaler";
  public static final String MASTER_LABEL = "node-role.kubernetes.io/master";

  /** The nodes this predicate admits, as load balancers see them, sorted by name. */
  public List<LbNode> select(Collection<Node> nodes) {
    List<LbNode> out = new ArrayList<>();
    for (Node n : nodes) {
      if (test(n)) {
        out.add(Views.node(n));
      }
    }
    out.sort(Comparator.comparing(LbNode::name));
    return out;
  }

  public static NodeEligibility of(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  static boolean notDeleted(Node node) {
    return node.getMetadata().getDeletionTimestamp() == null;
  }

  /** Absent label: included. Present: excluded unless its value parses as false. */
  static boolean included(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    if (labels == null || !labels.containsKey(EXCLUDE_LABEL)) {
      return true;
    }
    return parsesAsFalse(labels.get(EXCLUDE_LABEL));
  }

  /** Go's strconv.ParseBool false values. */
  static boolean parsesAsFalse(String value) {
    return switch (value == null ? "" : value) {
      case "0", "f", "F", "false", "FALSE", "False" -> true;
      default -> false;
    };
  }

  static boolean notTaintedForDeletion(Node node) {
    if (node.getSpec() == null || node.getSpec().getTaints() == null) {
      return true;
    }
    for (Taint t : node.getSpec().getTaints()) {
      if (AUTOSCALER_TAINT.equals(t.getKey())) {
        return false;
      }
    }
    return true;
  }

  static boolean ready(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    for (NodeCondition c : node.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return "True".equals(c.getStatus());
      }
    }
    return false;
  }

  static boolean schedulable(Node node) {
    return node.getSpec() == null || !Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  static boolean notMaster(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels == null || !labels.containsKey(MASTER_LABEL);
  }
}
