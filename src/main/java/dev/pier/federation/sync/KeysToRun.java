package dev.pier.federation.sync;

import dev.pier.federation.Federated;
import dev.pier.federation.members.Member;
import dev.pier.federation.members.Members;
import dev.pier.kube.ClusterAccess;
import dev.pier.model.FederationKeys;
import dev.pier.model.ServiceKey;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The keys a change runs, handed to the federation's queue: of one federated Service, of all of
 * them, of one member's side. Reads only the host's and the members' caches.
 */
final class KeysToRun {
  private final ClusterAccess host;
  private final Members members;
  private final String federation;
  private final Predicate<Service> federated;
  private final Consumer<ServiceKey> add;

  /**
   * @param federated whether a host Service asks to be federated
   * @param add queues a key (where this replica runs it)
   */
  KeysToRun(
      ClusterAccess host,
      Members members,
      String federation,
      Predicate<Service> federated,
      Consumer<ServiceKey> add) {
    this.host = host;
    this.members = members;
    this.federation = federation;
    this.federated = federated;
    this.add = add;
  }

  /** Whether the federation runs the host Service: federated, or still with its finalizer. */
  boolean isOurs(Service s) {
    return federated.test(s) || Federated.hasFinalizer(s);
  }

  /** Whether a member Service carries this federation's label (Pier's copy, or was). */
  boolean labelled(Service s) {
    Map<String, String> labels = s.getMetadata().getLabels();
    return labels != null && federation.equals(labels.get(FederationKeys.FEDERATION_LABEL));
  }

  void add(ServiceKey key) {
    add.accept(key);
  }

  /** The host's key and every member's key of one Service. */
  void allOf(String namespace, String name) {
    add(new ServiceKey(host.name(), namespace, name));
    for (Member m : members.all()) {
      add(new ServiceKey(m.name(), namespace, name));
    }
  }

  /** The host's key and every member's key of the host Service. */
  void allOf(Service s) {
    allOf(ns(s), name(s));
  }

  /** The host's key of every host Service that is federated or still carries the finalizer. */
  void hostKeys() {
    for (Service s : host.services()) {
      if (isOurs(s)) {
        hostOf(s);
      }
    }
  }

  /** The host's key of the host Service: its aggregate. */
  void hostOf(Service s) {
    add(new ServiceKey(host.name(), ns(s), name(s)));
  }

  /** The host's and every member's key of every federated Service. */
  void allKeys() {
    for (Service s : host.services()) {
      if (isOurs(s)) {
        allOf(s);
      }
    }
  }

  /** The member's key of every federated Service. */
  void memberKeys(Member m) {
    for (Service s : host.services()) {
      if (isOurs(s)) {
        add(new ServiceKey(m.name(), ns(s), name(s)));
      }
    }
  }

  /** Every copy Pier owns in a member gets a run: those whose host Service is gone are deleted. */
  void ownedCopies(Member m) {
    for (Service s : m.cluster().services()) {
      if (labelled(s)) {
        add(new ServiceKey(m.name(), ns(s), name(s)));
      }
    }
  }

  /** A namespace opted in or out: its federated Services run again. */
  void namespace(String namespace) {
    for (Service s : host.services()) {
      if (namespace.equals(ns(s)) && isOurs(s)) {
        allOf(namespace, name(s));
      }
    }
  }

  static String ns(Service s) {
    return s.getMetadata().getNamespace();
  }

  static String name(Service s) {
    return s.getMetadata().getName();
  }
}
