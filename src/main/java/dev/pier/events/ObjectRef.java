package dev.pier.events;

import dev.pier.model.ServiceRef;

/** The object an Event is about ({@code involvedObject}). */
public record ObjectRef(String kind, String apiVersion, String namespace, String name, String uid) {

  /** The one way Events name a Service. */
  public static ObjectRef of(ServiceRef service) {
    return new ObjectRef("Service", "v1", service.namespace(), service.name(), service.uid());
  }

  /** The one way Events name a Secret (a member Secret). */
  public static ObjectRef secret(String namespace, String name, String uid) {
    return new ObjectRef("Secret", "v1", namespace, name, uid);
  }
}
