package dev.pier.dns.powerdns;

import static com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.pier.dns.DnsZone;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The PowerDNS API's JSON as records; fields Pier does not use are ignored. */
final class PowerDnsJson {
  static final JsonMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .build();

  private PowerDnsJson() {}

  /** A zone as the API answers it; {@code rrsets} only when asked for. */
  record Zone(String id, String name, List<RRSet> rrsets) {
    Zone {
      rrsets = rrsets == null ? List.of() : rrsets;
    }

    DnsZone dnsZone() {
      return new DnsZone(id, name);
    }
  }

  /** One rrset of a zone answer. */
  record RRSet(
      String name, String type, long ttl, List<ResourceRecord> records, List<Comment> comments) {
    RRSet {
      records = records == null ? List.of() : records;
      comments = comments == null ? List.of() : comments;
    }
  }

  record ResourceRecord(String content, boolean disabled) {}

  record Comment(String content, String account) {}

  /** The body of {@code POST /zones}. */
  record NewZone(String name, String kind, List<String> nameservers) {}

  /** The body of {@code PATCH /zones/{id}}. */
  record Patch(List<Change> rrsets) {}

  /** One rrset of a PATCH: a DELETE names only its name and type. */
  @JsonInclude(NON_NULL)
  record Change(
      String name,
      String type,
      Long ttl,
      String changetype,
      List<ResourceRecord> records,
      List<Comment> comments) {}

  static Buffer encode(Object body) {
    return Buffer.buffer(MAPPER.writeValueAsBytes(body));
  }

  static <T> T decode(Buffer body, Class<T> type) {
    return MAPPER.readValue(body.getBytes(), type);
  }
}
