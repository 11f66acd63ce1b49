package dev.pier.cloud.webhook;

import static com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.pier.model.LbIngress;
import dev.pier.model.LbNode;
import dev.pier.model.LbService;
import dev.pier.model.LbStatus;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON bodies of the webhook contract (docs/webhook-provider.md) as records; component names
 * are the wire names.
 */
public final class WebhookJson {
  /** Fields a webhook adds to its answers are ignored, as the contract promises for requests. */
  static final JsonMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .build();

  private WebhookJson() {}

  /**
   * The request body of every operation; {@code nodes} only for ensure and update-hosts. {@code
   * clusterUid} is the cluster's identity (the uid of its kube-system namespace): unlike {@code
   * cluster}, it differs between clusters.
   */
  public record Request(
      String cluster,
      String clusterUid,
      String loadBalancerName,
      Service service,
      @JsonInclude(NON_NULL) List<Node> nodes) {}

  /** The Service; unset fields such as {@code loadBalancerIP} are sent as explicit nulls. */
  public record Service(
      String namespace,
      String name,
      String uid,
      List<Port> ports,
      String loadBalancerIP,
      String externalTrafficPolicy,
      int healthCheckNodePort,
      String sessionAffinity,
      List<String> loadBalancerSourceRanges,
      Map<String, String> annotations,
      List<String> ipFamilies,
      Status status) {}

  public record Port(String name, String protocol, int port, int nodePort) {}

  public record Node(
      String name,
      String providerID,
      String internalIP,
      String externalIP,
      Map<String, String> labels) {}

  /** {@code {"ingress": [...]}}, in requests and answers. */
  public record Status(List<Ingress> ingress) {}

  /** One ingress point; absent fields are left out. */
  @JsonInclude(NON_NULL)
  public record Ingress(String ip, String hostname, String ipMode) {}

  /** A success answer: get's {@code exists} and {@code status}, ensure's status and warnings. */
  /** The answer of get ({@code exists}, {@code status}), ensure and verify ({@code repairs}). */
  record Answer(Boolean exists, Status status, List<Warning> warnings, List<String> repairs) {
    Answer {
      warnings = warnings == null ? List.of() : warnings;
      repairs = repairs == null ? List.of() : repairs;
    }
  }

  record Warning(String reason, String message) {}

  /** The body of the optional {@code list} call. */
  public record ListRequest(String cluster, String clusterUid) {}

  /** {@code list}'s answer: what the webhook holds for the request's clusterUid. */
  record ListAnswer(List<Listed> loadBalancers) {
    ListAnswer {
      loadBalancers = loadBalancers == null ? List.of() : loadBalancers;
    }
  }

  /** One listed load balancer; {@code serviceKey} is {@code cluster/namespace/name}. */
  record Listed(String id, String name, String serviceUid, String serviceKey) {}

  /** {@code {"error": {"kind", "message", "field", "value"}}}. */
  record ErrorAnswer(WebhookError error) {}

  record WebhookError(String kind, String message, String field, String value) {}

  public static Request request(
      String cluster,
      String clusterUid,
      String loadBalancerName,
      LbService service,
      List<LbNode> nodes) {
    return new Request(
        cluster,
        clusterUid,
        loadBalancerName,
        service(service),
        nodes == null ? null : nodes.stream().map(WebhookJson::node).toList());
  }

  static Service service(LbService s) {
    return new Service(
        s.key().namespace(),
        s.key().name(),
        s.uid(),
        s.ports().stream()
            .map(p -> new Port(p.name(), p.protocol(), p.port(), p.nodePort()))
            .toList(),
        s.loadBalancerIp(),
        s.externalTrafficPolicy(),
        s.healthCheckNodePort(),
        s.sessionAffinity(),
        s.sourceRanges(),
        s.annotations(),
        s.ipFamilies(),
        status(s.status()));
  }

  static Node node(LbNode n) {
    return new Node(n.name(), n.providerId(), n.internalIp(), n.externalIp(), n.labels());
  }

  public static Status status(LbStatus status) {
    return new Status(
        status.ingress().stream().map(i -> new Ingress(i.ip(), i.hostname(), i.ipMode())).toList());
  }

  /** Parses {@code {"ingress": [{"ip", "hostname", "ipMode"}]}}; throws on a malformed status. */
  public static LbStatus parseStatus(Status status) {
    if (status == null) {
      throw new IllegalArgumentException("no \"status\" object");
    }
    List<Ingress> list = status.ingress() == null ? List.of() : status.ingress();
    List<LbIngress> ingress = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      Ingress e = list.get(i);
      String ip = e == null ? null : e.ip();
      String hostname = e == null ? null : e.hostname();
      if ((ip == null || ip.isEmpty()) && (hostname == null || hostname.isEmpty())) {
        throw new IllegalArgumentException("status.ingress[" + i + "] has neither ip nor hostname");
      }
      String mode = e.ipMode();
      if (mode != null && !mode.equals("VIP") && !mode.equals("Proxy")) {
        throw new IllegalArgumentException(
            "status.ingress[" + i + "].ipMode=" + mode + " is not VIP or Proxy");
      }
      ingress.add(new LbIngress(ip, hostname, mode, List.of()));
    }
    return new LbStatus(ingress);
  }

  /** A body as JSON bytes, for {@code sendBuffer} with {@code Content-Type: application/json}. */
  public static Buffer encode(Object body) {
    return Buffer.buffer(MAPPER.writeValueAsBytes(body));
  }

  /** The body as {@code type}; an empty body reads as {@code {}}. */
  static <T> T decode(Buffer body, Class<T> type) {
    return body == null || body.length() == 0
        ? MAPPER.readValue("{}", type)
        : MAPPER.readValue(body.getBytes(), type);
  }
}
