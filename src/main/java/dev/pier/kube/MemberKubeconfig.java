package dev.pier.kube;

import dev.pier.model.KubeCredentials;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads the kubeconfig of a member that joins through a Secret, accepting only what cannot reach
 * beyond that member: an {@code https} server, inline CA data, and a token or an inline client
 * certificate and key. Everything else (an exec or auth-provider plugin, a file path, a proxy,
 * skipping TLS verification, basic auth) is refused, naming the field and never its value: whoever
 * can write the Secret must not run code in Pier, read its files or send its requests elsewhere.
 * fabric8 never sees the kubeconfig; {@link KubeClients} builds its client from the result.
 */
public final class MemberKubeconfig {
  private static final YAMLMapper YAML =
      YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  // extensions are inert data some tools write (minikube, cloud CLIs); nobody reads them.
  private static final String EXTENSIONS = "extensions";
  private static final Set<String> TOP =
      Set.of(
          "apiVersion",
          "kind",
          "preferences",
          "clusters",
          "users",
          "contexts",
          "current-context",
          EXTENSIONS);
  private static final Set<String> ENTRY_CLUSTER = Set.of("name", "cluster");
  private static final Set<String> CLUSTER =
      Set.of("server", "certificate-authority-data", EXTENSIONS);
  private static final Set<String> ENTRY_USER = Set.of("name", "user");
  private static final Set<String> USER =
      Set.of("token", "client-certificate-data", "client-key-data", EXTENSIONS);
  private static final Set<String> ENTRY_CONTEXT = Set.of("name", "context");
  private static final Set<String> CONTEXT = Set.of("cluster", "user", "namespace", EXTENSIONS);

  private MemberKubeconfig() {}

  /**
   * The credentials of the context named {@code context} (empty: the kubeconfig's {@code
   * current-context}).
   *
   * @throws IllegalArgumentException naming the field that is missing, malformed or not allowed,
   *     never quoting a credential or a line of the input
   */
  public static KubeCredentials parse(String yaml, String context) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JacksonException e) {
      // The parser's own message quotes the offending text, which may be part of a token.
      TokenStreamLocation at = e.getLocation();
      throw new IllegalArgumentException(
          "not a valid YAML document"
              + (at == null || at.getLineNr() < 0
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a kubeconfig: the document is not a mapping");
    }
    only(root, TOP, "");
    checkEntries(root, "clusters", ENTRY_CLUSTER, "cluster", CLUSTER);
    checkEntries(root, "users", ENTRY_USER, "user", USER);
    checkEntries(root, "contexts", ENTRY_CONTEXT, "context", CONTEXT);

    String contextName = context.isEmpty() ? text(root, "current-context", "") : context;
    if (contextName.isEmpty()) {
      throw new IllegalArgumentException(
          "current-context: missing, and the Secret names no context (pier.dev/context)");
    }
    Named ctx = named(root, "contexts", contextName, "context");
    String clusterName = required(ctx.body(), "cluster", ctx.path());
    String userName = required(ctx.body(), "user", ctx.path());
    Named cluster = named(root, "clusters", clusterName, "cluster");
    Named user = named(root, "users", userName, "user");

    String server = required(cluster.body(), "server", cluster.path());
    checkServer(server, cluster.path() + ".server");
    String ca = base64(cluster.body(), "certificate-authority-data", cluster.path());
    String token = text(user.body(), "token", "");
    String cert = base64(user.body(), "client-certificate-data", user.path());
    String key = base64(user.body(), "client-key-data", user.path());
    if (cert.isEmpty() != key.isEmpty()) {
      throw new IllegalArgumentException(
          user.path() + ": client-certificate-data and client-key-data must be given together");
    }
    if (token.isEmpty() && cert.isEmpty()) {
      throw new IllegalArgumentException(
          user.path()
              + ": no credentials; it must have a token, or client-certificate-data with"
              + " client-key-data");
    }
    return new KubeCredentials(server, ca, token, cert, key);
  }

  private record Named(String path, JsonNode body) {}

  private static void checkEntries(
      JsonNode root, String list, Set<String> entryFields, String bodyField, Set<String> fields) {
    JsonNode items = root.get(list);
    if (items == null || items.isNull()) {
      return;
    }
    if (!items.isArray()) {
      throw new IllegalArgumentException(list + ": must be a list");
    }
    for (int i = 0; i < items.size(); i++) {
      String path = list + "[" + i + "]";
      JsonNode item = items.get(i);
      if (!item.isObject()) {
        throw new IllegalArgumentException(path + ": must be a mapping");
      }
      only(item, entryFields, path + ".");
      JsonNode body = item.get(bodyField);
      if (body != null && !body.isNull()) {
        if (!body.isObject()) {
          throw new IllegalArgumentException(path + "." + bodyField + ": must be a mapping");
        }
        only(body, fields, path + "." + bodyField + ".");
        for (Map.Entry<String, JsonNode> field : body.properties()) {
          if (!field.getKey().equals(EXTENSIONS) && !field.getValue().isString()) {
            throw new IllegalArgumentException(
                path + "." + bodyField + "." + field.getKey() + ": must be a string");
          }
        }
      }
    }
  }

  private static void only(JsonNode node, Set<String> allowed, String prefix) {
    Iterator<String> names = node.propertyNames().iterator();
    while (names.hasNext()) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw new IllegalArgumentException(
            prefix
                + name
                + ": not allowed in a member kubeconfig (allowed: an https server,"
                + " certificate-authority-data, and a token or client-certificate-data with"
                + " client-key-data)");
      }
    }
  }

  /** The entry of {@code list} whose name is {@code name}, with the path of its body. */
  private static Named named(JsonNode root, String list, String name, String bodyField) {
    JsonNode items = root.get(list);
    if (items != null && items.isArray()) {
      for (int i = 0; i < items.size(); i++) {
        JsonNode item = items.get(i);
        if (name.equals(text(item, "name", ""))) {
          JsonNode body = item.get(bodyField);
          String path = list + "[" + i + "]." + bodyField;
          if (body == null || !body.isObject()) {
            throw new IllegalArgumentException(path + ": missing");
          }
          return new Named(path, body);
        }
      }
    }
    throw new IllegalArgumentException(list + ": no entry named '" + name + "'");
  }

  private static String text(JsonNode node, String field, String fallback) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isString()) {
      throw new IllegalArgumentException(field + ": must be a string");
    }
    return v.asString();
  }

  private static String required(JsonNode body, String field, String path) {
    String v = text(body, field, "");
    if (v.isEmpty()) {
      throw new IllegalArgumentException(path + "." + field + ": missing");
    }
    return v;
  }

  private static String base64(JsonNode body, String field, String path) {
    String v = text(body, field, "").trim();
    if (!v.isEmpty()) {
      try {
        Base64.getMimeDecoder().decode(v);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(path + "." + field + ": not base64");
      }
    }
    return v;
  }

  private static void checkServer(String server, String path) {
    URI uri;
    try {
      uri = new URI(server);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(path + ": not a URL");
    }
    if (!"https".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException(path + ": must be an https URL");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new IllegalArgumentException(path + ": has no host");
    }
    if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          path + ": must not carry user information, a query or a fragment");
    }
  }
}
