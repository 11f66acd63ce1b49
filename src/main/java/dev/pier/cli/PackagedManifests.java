package dev.pier.cli;

import dev.pier.kube.RbacFiles;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The manifests packaged in the jar (the same version as the code that applies them). */
public final class PackagedManifests {
  public static final String NAMESPACE = "k8s/namespace.yaml";

  private PackagedManifests() {}

  /** The binding that gives the federation's identity in a member the base role. */
  static final String LOAD_BALANCERS_BINDING = "pier-federation-load-balancers";

  /**
   * What a member needs: the namespace, the federation identity and, for a member that runs Pier's
   * load balancers, the base role bound to that identity too (the token Pier holds there is the
   * federation identity's).
   */
  public static List<HasMetadata> member(boolean loadBalancers) {
    List<HasMetadata> out = new ArrayList<>(load(NAMESPACE));
    out.addAll(load(RbacFiles.FEDERATION_MEMBER));
    if (loadBalancers) {
      out.addAll(loadBalancerRbac());
    }
    return out;
  }

  /** The base role, bound to the federation identity too: Pier's load balancers in a member. */
  private static List<HasMetadata> loadBalancerRbac() {
    List<HasMetadata> out = new ArrayList<>(load(RbacFiles.BASE));
    out.add(
        new ClusterRoleBindingBuilder()
            .withNewMetadata()
            .withName(LOAD_BALANCERS_BINDING)
            .withLabels(Map.of("app.kubernetes.io/name", "pier"))
            .endMetadata()
            .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "pier")
            .addNewSubject()
            .withKind("ServiceAccount")
            .withName(Join.SERVICE_ACCOUNT)
            .withNamespace(Join.MEMBER_NAMESPACE)
            .endSubject()
            .build());
    return out;
  }

  /**
   * What a member needs whose Pier reads only {@code namespaces} ({@code federation.memberScope:
   * namespaces}): the namespace of the federation identity, that identity with the health probe's
   * cluster-wide rights, and in each namespace (made when missing) the Role and RoleBinding of the
   * namespaced manifest; for a member that runs Pier's load balancers, the base role as in {@link
   * #member}.
   */
  public static List<HasMetadata> memberInNamespaces(
      List<String> namespaces, boolean loadBalancers) {
    List<HasMetadata> out = new ArrayList<>(load(NAMESPACE));
    List<HasMetadata> namespaced = load(RbacFiles.FEDERATION_MEMBER_NAMESPACED);
    namespaced.stream()
        .filter(o -> !(o instanceof Role) && !(o instanceof RoleBinding))
        .forEach(out::add);
    for (String ns : namespaces) {
      out.add(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
      for (HasMetadata o : namespaced) {
        if (o instanceof Role role) {
          out.add(new RoleBuilder(role).editMetadata().withNamespace(ns).endMetadata().build());
        } else if (o instanceof RoleBinding binding) {
          out.add(
              new RoleBindingBuilder(binding)
                  .editMetadata()
                  .withNamespace(ns)
                  .endMetadata()
                  .build());
        }
      }
    }
    if (loadBalancers) {
      out.addAll(loadBalancerRbac());
    }
    return out;
  }

  static List<HasMetadata> load(String resource) {
    try (InputStream in = PackagedManifests.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not packaged in this build");
      }
      Object parsed = Serialization.unmarshal(in);
      if (parsed instanceof KubernetesList list) {
        return list.getItems();
      }
      if (parsed instanceof List<?> list) {
        return list.stream().map(HasMetadata.class::cast).toList();
      }
      return List.of((HasMetadata) parsed);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
