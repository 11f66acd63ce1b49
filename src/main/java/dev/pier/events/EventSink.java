package dev.pier.events;

/** Where reconcilers report Kubernetes Events; implementations never block the caller. */
public interface EventSink {
  String NORMAL = "Normal";
  String WARNING = "Warning";

  void record(ObjectRef ref, String type, String reason, String message);

  default void normal(ObjectRef ref, String reason, String message) {
    record(ref, NORMAL, reason, message);
  }

  default void warning(ObjectRef ref, String reason, String message) {
    record(ref, WARNING, reason, message);
  }
}
