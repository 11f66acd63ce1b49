package dev.pier.image;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What an image's configuration says: its user, entrypoint, default arguments and labels. */
record ImageConfig(
    String user, List<String> entrypoint, List<String> cmd, Map<String, String> labels) {

  /** From {@code podman image inspect --format '{{json .Config}}'}. */
  static ImageConfig parse(String json) {
    JsonObject config = new JsonObject(json.strip());
    Map<String, String> labels = new LinkedHashMap<>();
    JsonObject l = config.getJsonObject("Labels", new JsonObject());
    l.forEach(e -> labels.put(e.getKey(), String.valueOf(e.getValue())));
    return new ImageConfig(
        config.getString("User", ""),
        strings(config.getJsonArray("Entrypoint")),
        strings(config.getJsonArray("Cmd")),
        labels);
  }

  private static List<String> strings(JsonArray array) {
    List<String> out = new ArrayList<>();
    if (array != null) {
      array.forEach(v -> out.add(String.valueOf(v)));
    }
    return out;
  }

  /** The command a container runtime runs: the entrypoint, then the default arguments. */
  List<String> command() {
    List<String> all = new ArrayList<>(entrypoint);
    all.addAll(cmd);
    return all;
  }
}
