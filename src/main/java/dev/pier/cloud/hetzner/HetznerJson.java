package dev.pier.cloud.hetzner;

import static com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Hetzner Cloud API's JSON as records. The mapper names properties in snake_case ({@code
 * listenPort} is {@code listen_port}) and ignores fields it does not know.
 */
final class HetznerJson {
  static final JsonMapper MAPPER =
      JsonMapper.builder()
          .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .build();

  private HetznerJson() {}

  static Buffer encode(Object body) {
    return Buffer.buffer(MAPPER.writeValueAsBytes(body));
  }

  /** The body as {@code type}; an empty body reads as {@code {}}. */
  static <T> T decode(Buffer body, Class<T> type) {
    return body == null || body.length() == 0
        ? MAPPER.readValue("{}", type)
        : MAPPER.readValue(body.getBytes(), type);
  }

  // --- answers ----------------------------------------------------------------------------

  /** A single-object answer: {@code load_balancer} and/or {@code action}. */
  record Answer(LoadBalancer loadBalancer, Action action) {}

  /** One page of {@code GET /load_balancers}. */
  record Page(List<LoadBalancer> loadBalancers, Meta meta) {
    Page {
      loadBalancers = loadBalancers == null ? List.of() : loadBalancers;
    }

    /** {@code meta.pagination.next_page}, or null on the last page. */
    Integer nextPage() {
      return meta == null || meta.pagination() == null ? null : meta.pagination().nextPage();
    }
  }

  record Meta(Pagination pagination) {}

  record Pagination(Integer nextPage) {}

  /** {@code {"error": {"code", "message", "details"}}}. */
  record ErrorAnswer(ApiError error) {}

  record ApiError(String code, String message, Details details) {
    /** The names in {@code details.fields}: the request fields an invalid_input error blames. */
    List<String> invalidFields() {
      return details == null || details.fields() == null
          ? List.of()
          : details.fields().stream()
              .filter(f -> f != null && f.name() != null)
              .map(FieldError::name)
              .toList();
    }
  }

  record Details(List<FieldError> fields) {}

  record FieldError(String name) {}

  record Action(long id, String command, String status, ActionError error) {
    Action {
      error = error == null ? new ActionError(null, null) : error;
    }
  }

  record ActionError(String code, String message) {}

  /** The parts of a load balancer Pier reads; absent objects read as empty ones. */
  record LoadBalancer(
      long id,
      String name,
      Map<String, String> labels,
      Named loadBalancerType,
      Named location,
      Algorithm algorithm,
      PublicNet publicNet,
      Protection protection,
      List<Service> services,
      List<Target> targets) {
    LoadBalancer {
      labels = labels == null ? Map.of() : labels;
      loadBalancerType = loadBalancerType == null ? new Named(null) : loadBalancerType;
      location = location == null ? new Named(null) : location;
      algorithm = algorithm == null ? new Algorithm(null) : algorithm;
      publicNet = publicNet == null ? new PublicNet(null, null, null) : publicNet;
      protection = protection == null ? new Protection(false) : protection;
      services = services == null ? List.of() : services;
      targets = targets == null ? List.of() : targets;
    }
  }

  /** An object known by its name, such as {@code location} or {@code load_balancer_type}. */
  record Named(String name) {}

  record Protection(boolean delete) {}

  /** {@code enabled} is true when absent. */
  record PublicNet(Boolean enabled, Ip ipv4, Ip ipv6) {
    PublicNet {
      enabled = enabled == null || enabled;
      ipv4 = ipv4 == null ? new Ip(null) : ipv4;
      ipv6 = ipv6 == null ? new Ip(null) : ipv6;
    }
  }

  record Ip(String ip) {}

  // --- request bodies (and parts the API echoes back) ----------------------------------------

  /** {@code POST /load_balancers}; exactly one of {@code location} and {@code network_zone}. */
  record Create(
      String name,
      String loadBalancerType,
      Algorithm algorithm,
      Map<String, String> labels,
      List<Service> services,
      List<Target> targets,
      boolean publicInterface,
      @JsonInclude(NON_NULL) String location,
      @JsonInclude(NON_NULL) String networkZone) {}

  /** {@code PUT /load_balancers/{id}}: only what changes. */
  @JsonInclude(NON_NULL)
  record Update(String name, Map<String, String> labels) {}

  /** The {@code change_type} action. */
  record ChangeType(String loadBalancerType) {}

  /** A load balancer's algorithm, also the {@code change_algorithm} action's body. */
  record Algorithm(String type) {}

  /** The {@code delete_service} action. */
  record ListenPort(int listenPort) {}

  /** A load balancer service, also the {@code add_service} and {@code update_service} bodies. */
  record Service(
      String protocol,
      int listenPort,
      int destinationPort,
      boolean proxyprotocol,
      HealthCheck healthCheck) {}

  /** A service's health check; {@code http} only for the http and https protocols. */
  record HealthCheck(
      String protocol,
      int port,
      int interval,
      int timeout,
      int retries,
      @JsonInclude(NON_NULL) Http http) {}

  /** The http part of a health check; {@code domain} is sent even when null. */
  record Http(String domain, String path, List<String> statusCodes, boolean tls) {}

  /**
   * A server target, also the {@code add_target} body and, without {@code use_private_ip}, the
   * {@code remove_target} body.
   */
  record Target(String type, Server server, @JsonInclude(NON_NULL) Boolean usePrivateIp) {
    static Target of(long serverId, Boolean usePrivateIp) {
      return new Target("server", new Server(serverId), usePrivateIp);
    }
  }

  record Server(long id) {}
}
