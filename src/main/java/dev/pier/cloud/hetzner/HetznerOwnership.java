package dev.pier.cloud.hetzner;

import dev.pier.cloud.LoadBalancerProvider.OwnedLoadBalancer;
import dev.pier.cloud.ProviderException;
import dev.pier.cloud.hetzner.HetznerJson.LoadBalancer;
import dev.pier.log.ServiceLog;
import dev.pier.model.ClusterIdentity;
import dev.pier.model.LbService;
import dev.pier.model.ServiceKey;
import dev.pier.model.ServiceRef;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which Hetzner load balancers are a Service's, after hcloud-cloud-controller-manager: a Service
 * owns the load balancer labelled {@code hcloud-ccm/service-uid=<uid>} (so Pier adopts hcloud-ccm's
 * load balancers) and no other. A load balancer already having the Service's name is taken over
 * only with {@code hetzner.adoptByName} and only when it carries no uid label; otherwise the name
 * is refused ({@code LoadBalancerNameTaken}) before anything is called on it.
 *
 * <p>Every load balancer Pier makes also carries {@code pier.dev/cluster-uid=<uid>}, the uid of the
 * cluster's {@code kube-system} namespace: cluster names are not unique, so two clusters sharing a
 * project tell their load balancers apart by this label alone. A load balancer labelled with
 * another cluster's uid is never this cluster's, whatever its other labels say; the orphan sweep
 * sees only load balancers with this cluster's uid. One marked the old way ({@code
 * pier.dev/cluster=<name>} without a uid) is adopted, labelled with the uid, only when its {@code
 * hcloud-ccm/service-uid} is the uid of a Service of this cluster; any other is left alone with a
 * warning.
 */
final class HetznerOwnership {
  private static final Logger log = LoggerFactory.getLogger(HetznerOwnership.class);
  private static final ServiceLog serviceLog = ServiceLog.of(HetznerOwnership.class);

  /** The label hcloud-ccm and Pier both put on a Service's load balancer. */
  static final String SERVICE_UID_LABEL = "hcloud-ccm/service-uid";

  /** Pier's ownership labels: the cluster, namespace and name of the Service. */
  static final String CLUSTER_LABEL = "pier.dev/cluster";

  /** The cluster's identity: the uid of its kube-system namespace. */
  static final String CLUSTER_UID_LABEL = "pier.dev/cluster-uid";

  static final String NAMESPACE_LABEL = "pier.dev/namespace";
  static final String NAME_LABEL = "pier.dev/name";

  private final HetznerApi api;
  private final boolean adoptByName;

  // Cluster name -> uid of its kube-system namespace, from the provider's initialize.
  private final Map<String, String> clusterUids = new ConcurrentHashMap<>();

  HetznerOwnership(HetznerApi api, boolean adoptByName) {
    this.api = api;
    this.adoptByName = adoptByName;
  }

  /** Remembers the cluster's uid, which every later call for the cluster needs. */
  void remember(ClusterIdentity cluster) {
    clusterUids.put(cluster.name(), cluster.uid());
  }

  /** The uid of the named cluster, {@link #remember remembered}; a retry before that. */
  String clusterUid(String clusterName) {
    String uid = clusterUids.get(clusterName);
    if (uid == null) {
      throw new ProviderException.Retry(
          "cluster "
              + clusterName
              + ": its identity (kube-system uid) is not known yet: the provider was not"
              + " initialized for it");
    }
    return uid;
  }

  /** The labels that make a load balancer the Service's, in this cluster. */
  Map<String, String> labels(String clusterName, LbService service) {
    ServiceKey key = service.key();
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(SERVICE_UID_LABEL, service.uid());
    labels.put(CLUSTER_LABEL, clusterName);
    labels.put(CLUSTER_UID_LABEL, clusterUid(clusterName));
    labels.put(NAMESPACE_LABEL, key.namespace());
    labels.put(NAME_LABEL, key.name());
    return labels;
  }

  // --- adopting the old scheme ---------------------------------------------------------------

  /**
   * Adopts the load balancers marked the old way (cluster name, no uid) whose Service is one of
   * {@code serviceUids}, labelling each with the cluster's uid; the others are left alone with a
   * warning.
   */
  Future<Void> adoptOldScheme(ClusterIdentity cluster, Set<String> serviceUids) {
    return api.loadBalancers(Map.of("label_selector", CLUSTER_LABEL + "=" + cluster.name()))
        .compose(lbs -> adoptOldScheme(cluster, lbs, serviceUids));
  }

  private Future<Void> adoptOldScheme(
      ClusterIdentity cluster, List<LoadBalancer> lbs, Set<String> serviceUids) {
    Future<Void> chain = Future.succeededFuture();
    for (LoadBalancer lb : lbs) {
      if (lb.labels().containsKey(CLUSTER_UID_LABEL)) {
        continue;
      }
      String serviceUid = lb.labels().getOrDefault(SERVICE_UID_LABEL, "");
      if (serviceUid.isEmpty() || !serviceUids.contains(serviceUid)) {
        warnNotAdopted(cluster, lb, serviceUid);
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>(lb.labels());
      labels.put(CLUSTER_UID_LABEL, cluster.uid());
      log.info(
          "Cluster {}: adopting load balancer {} ({}): its Service {} exists in this cluster;"
              + " labelling it {}={}",
          cluster.name(),
          lb.id(),
          lb.name(),
          serviceUid,
          CLUSTER_UID_LABEL,
          cluster.uid());
      chain =
          chain.compose(
              v ->
                  api.put("/load_balancers/" + lb.id(), new HetznerJson.Update(null, labels))
                      .mapEmpty());
    }
    return chain;
  }

  private static void warnNotAdopted(ClusterIdentity cluster, LoadBalancer lb, String serviceUid) {
    log.warn(
        "Cluster {}: load balancer {} ({}) is labelled {}={} without {} and its {}={} is no"
            + " Service of this cluster: it may belong to another cluster of the same name, so"
            + " it is left alone and never swept; label it {}={} to hand it to this cluster,"
            + " or delete it by hand",
        cluster.name(),
        lb.id(),
        lb.name(),
        CLUSTER_LABEL,
        cluster.name(),
        CLUSTER_UID_LABEL,
        SERVICE_UID_LABEL,
        serviceUid.isEmpty() ? "\"\"" : serviceUid,
        CLUSTER_UID_LABEL,
        cluster.uid());
  }

  // --- the Service's own load balancer -------------------------------------------------------

  /** True when the load balancer is labelled as another cluster's. */
  private static boolean foreign(LoadBalancer lb, String clusterUid) {
    String marked = lb.labels().get(CLUSTER_UID_LABEL);
    return marked != null && !marked.equals(clusterUid);
  }

  /**
   * The Service's own load balancer: the one labelled {@code hcloud-ccm/service-uid=<uid>} and not
   * labelled as another cluster's, or null. Reads, host updates and deletes only ever see this one,
   * so a Service never changes or deletes a load balancer it does not own, whatever its name
   * annotation says. One without a cluster uid is this cluster's: its Service is.
   */
  Future<LoadBalancer> owned(String clusterName, LbService service) {
    String clusterUid = clusterUid(clusterName);
    return api.loadBalancers(Map.of("label_selector", SERVICE_UID_LABEL + "=" + service.uid()))
        .map(all -> firstOwned(service, all, clusterUid));
  }

  private static LoadBalancer firstOwned(
      LbService service, List<LoadBalancer> all, String clusterUid) {
    List<LoadBalancer> byUid = new ArrayList<>();
    for (LoadBalancer lb : all) {
      if (foreign(lb, clusterUid)) {
        serviceLog.warn(
            service.ref(),
            "load balancer {} ({}) carries {}={} but {}={}, another cluster's; not"
                + " this Service's",
            lb.id(),
            lb.name(),
            SERVICE_UID_LABEL,
            service.uid(),
            CLUSTER_UID_LABEL,
            lb.labels().get(CLUSTER_UID_LABEL));
      } else {
        byUid.add(lb);
      }
    }
    if (byUid.isEmpty()) {
      return null;
    }
    if (byUid.size() > 1) {
      serviceLog.warn(
          service.ref(),
          "{} load balancers carry {}={}; using {}",
          byUid.size(),
          SERVICE_UID_LABEL,
          service.uid(),
          byUid.get(0).id());
    }
    return byUid.get(0);
  }

  // --- ensuring: the Service's own, or one of its name ---------------------------------------

  /**
   * The load balancer an ensure works on: the Service's own; else, when one already has the
   * Service's load balancer name, that one only if adoption by name is on and it carries no uid
   * label (the update then labels it as this Service's); null when the name is free. A name taken
   * by a load balancer that is not the Service's fails with {@code LoadBalancerNameTaken}, before
   * anything is called on it; so does renaming the Service's own load balancer to such a name.
   */
  Future<LoadBalancer> findForEnsure(String clusterName, LbService service, String name) {
    String clusterUid = clusterUid(clusterName);
    return owned(clusterName, service)
        .compose(
            own -> {
              if (own != null && own.name().equals(name)) {
                return Future.succeededFuture(own);
              }
              return api.loadBalancers(Map.of("name", name))
                  .map(byName -> choose(service, own, byName, clusterUid));
            });
  }

  private LoadBalancer choose(
      LbService service, LoadBalancer own, List<LoadBalancer> byName, String clusterUid) {
    if (own != null) {
      // A rename of the Service's own load balancer.
      if (byName.isEmpty() || byName.get(0).id() == own.id()) {
        return own;
      }
      throw renameTaken(own, byName.get(0));
    }
    if (byName.isEmpty()) {
      return null;
    }
    LoadBalancer lb = byName.get(0);
    String owner = lb.labels().getOrDefault(SERVICE_UID_LABEL, "");
    if (foreign(lb, clusterUid)) {
      throw nameTaken(service, lb, owner, true);
    }
    if (owner.equals(service.uid())) {
      return lb;
    }
    if (owner.isEmpty() && adoptByName) {
      serviceLog.info(
          service.ref(), "adopting unlabelled load balancer {} ({}) by name", lb.id(), lb.name());
      return lb;
    }
    throw nameTaken(service, lb, owner, false);
  }

  /** The permanent error for renaming the Service's load balancer to a name another one has. */
  private static ProviderException.InvalidInput renameTaken(LoadBalancer own, LoadBalancer other) {
    String field = "metadata.annotations[" + HetznerSpec.NAME + "]";
    return new ProviderException.InvalidInput(
        field,
        other.name(),
        field
            + "="
            + other.name()
            + ": load balancer "
            + other.id()
            + " already has this name, so this Service's load balancer "
            + own.id()
            + " ("
            + own.name()
            + ") cannot be renamed to it; pick another name",
        "LoadBalancerNameTaken");
  }

  /** The permanent error for a name that belongs to a load balancer the Service does not own. */
  private static ProviderException.InvalidInput nameTaken(
      LbService service, LoadBalancer lb, String owner, boolean otherCluster) {
    boolean annotated = service.annotations().containsKey(HetznerSpec.NAME);
    String field =
        annotated ? "metadata.annotations[" + HetznerSpec.NAME + "]" : "load balancer name";
    String why =
        otherCluster
            ? "it is labelled "
                + CLUSTER_UID_LABEL
                + "="
                + lb.labels().get(CLUSTER_UID_LABEL)
                + ", another cluster's, and is never taken over; pick another name"
            : owner.isEmpty()
                ? "it carries no "
                    + SERVICE_UID_LABEL
                    + " label, so it is not this Service's; pick another name, or label it "
                    + SERVICE_UID_LABEL
                    + "="
                    + service.uid()
                    + " (or enable hetzner.adoptByName) to hand it over to this Service"
                : "it is labelled "
                    + SERVICE_UID_LABEL
                    + "="
                    + owner
                    + " for another Service and is never taken over; pick another name";
    return new ProviderException.InvalidInput(
        field,
        lb.name(),
        field + "=" + lb.name() + ": load balancer " + lb.id() + " of this name exists and " + why,
        "LoadBalancerNameTaken");
  }

  // --- deleting and sweeping -----------------------------------------------------------------

  /**
   * Why the Service may not delete the load balancer: it does not carry {@code
   * hcloud-ccm/service-uid=<uid>} (it is not the Service's); empty when it does.
   */
  static Optional<ProviderException> refuseDelete(ServiceRef p, LoadBalancer lb, String uid) {
    if (uid != null && !uid.isEmpty() && uid.equals(lb.labels().get(SERVICE_UID_LABEL))) {
      return Optional.empty();
    }
    return Optional.of(
        new ProviderException.Retry(
            p
                + ": load balancer "
                + lb.id()
                + " ("
                + lb.name()
                + ") does not carry "
                + SERVICE_UID_LABEL
                + "="
                + uid
                + "; not deleting it"));
  }

  /**
   * Why the orphan sweep may not delete the load balancer {@code id} as found now: it no longer
   * carries this cluster's uid; empty when it does.
   */
  Optional<ProviderException> refuseSweep(String clusterName, String id, LoadBalancer found) {
    String uid = clusterUid(clusterName);
    if (uid.equals(found.labels().get(CLUSTER_UID_LABEL))) {
      return Optional.empty();
    }
    return Optional.of(
        new ProviderException.Retry(
            "load balancer "
                + id
                + " no longer carries "
                + CLUSTER_UID_LABEL
                + "="
                + uid
                + "; left alone"));
  }

  /** The load balancers of the cluster's Services, as the orphan sweep sees them. */
  Future<List<OwnedLoadBalancer>> listOwned(String clusterName) {
    String selector = CLUSTER_UID_LABEL + "=" + clusterUid(clusterName) + "," + SERVICE_UID_LABEL;
    return api.loadBalancers(Map.of("label_selector", selector))
        .map(lbs -> lbs.stream().map(lb -> asOwned(clusterName, lb)).toList());
  }

  private static OwnedLoadBalancer asOwned(String clusterName, LoadBalancer lb) {
    return new OwnedLoadBalancer(
        Long.toString(lb.id()),
        lb.name(),
        lb.labels().getOrDefault(SERVICE_UID_LABEL, ""),
        clusterName
            + "/"
            + lb.labels().getOrDefault(NAMESPACE_LABEL, "")
            + "/"
            + lb.labels().getOrDefault(NAME_LABEL, ""));
  }
}
