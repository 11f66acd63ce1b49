package dev.pier.model;

/**
 * One Service of one cluster as a run, its log lines and its Events name it. {@link #toString()} is
 * the one log prefix: {@code Service <cluster>/<namespace>/<name>}.
 *
 * @param uid the Service's metadata.uid, or null when it is not known (a key without an object)
 */
public record ServiceRef(String cluster, String namespace, String name, String uid) {

  public static ServiceRef of(ServiceKey key, String uid) {
    return new ServiceRef(key.cluster(), key.namespace(), key.name(), uid);
  }

  public ServiceKey key() {
    return new ServiceKey(cluster, namespace, name);
  }

  @Override
  public String toString() {
    return "Service " + cluster + "/" + namespace + "/" + name;
  }
}
