package dev.pier.events;

/** The object an Event is about ({@code involvedObject}). */
public record ObjectRef(String kind, String apiVersion, String namespace, String name, String uid) {

  public static ObjectRef service(String namespace, String name, String uid) {
    return new ObjectRef("Service", "v1", namespace, name, uid);
  }
}
