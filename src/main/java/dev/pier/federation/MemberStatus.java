package dev.pier.federation;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A member's state as the leading Pier sees it, kept on the member's Secret in the annotation
 * {@code pier.dev/member-status} so that any tool with the operator's credentials can read it:
 *
 * <pre>{@code
 * {"ready":true,"since":"2025-01-01T10:00:00Z","lastProbe":"2025-01-01T10:05:00Z",
 *  "version":"v1.20.2","region":"eu","zones":["eu-a"],"credential":"token",
 *  "credentialExpiry":"2026-01-01T10:00:00Z","reason":""}
 * }</pre>
 *
 * @param since when {@code ready} last changed (or when Pier first saw the member)
 * @param version the member's {@code gitVersion}, empty until read
 * @param region empty when unknown
 * @param credential {@code token} or {@code client-certificate}
 * @param credentialExpiry null when the credential carries no expiry Pier can read
 * @param reason why the member is not ready (the last failed probe), empty while ready
 */
public record MemberStatus(
    boolean ready,
    Instant since,
    Instant lastProbe,
    String version,
    String region,
    List<String> zones,
    String credential,
    Instant credentialExpiry,
    String reason) {
  private static final JsonMapper MAPPER = JsonMapper.shared();

  /** How often a state that did not change is written again, to show that the probes go on. */
  public static final Duration REFRESH = Duration.ofMinutes(1);

  public MemberStatus {
    version = version == null ? "" : version;
    region = region == null ? "" : region;
    zones = zones == null ? List.of() : List.copyOf(zones);
    credential = credential == null ? "" : credential;
    reason = reason == null ? "" : reason;
  }

  /** Equal but for the time of the last probe: nothing an operator would see changed. */
  public boolean sameStateAs(MemberStatus other) {
    return other != null
        && ready == other.ready
        && Objects.equals(since, other.since)
        && version.equals(other.version)
        && region.equals(other.region)
        && zones.equals(other.zones)
        && credential.equals(other.credential)
        && Objects.equals(credentialExpiry, other.credentialExpiry)
        && reason.equals(other.reason);
  }

  /**
   * Whether {@code next} is to be written over {@code shown} (what the Secret shows, or null): when
   * its state differs, or when the last probe shown is {@link #REFRESH} old.
   */
  public static boolean worthWriting(MemberStatus shown, MemberStatus next) {
    if (!next.sameStateAs(shown)) {
      return true;
    }
    return shown.lastProbe == null
        || next.lastProbe == null
        || !next.lastProbe.isBefore(shown.lastProbe.plus(REFRESH));
  }

  public String toJson() {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("ready", ready);
    o.put("since", since == null ? null : since.toString());
    o.put("lastProbe", lastProbe == null ? null : lastProbe.toString());
    o.put("version", version);
    o.put("region", region);
    ArrayNode z = o.putArray("zones");
    zones.forEach(z::add);
    o.put("credential", credential);
    o.put("credentialExpiry", credentialExpiry == null ? null : credentialExpiry.toString());
    o.put("reason", reason);
    return MAPPER.writeValueAsString(o);
  }

  /** The status an annotation holds; null when it is absent or unreadable. */
  public static MemberStatus parse(String json) {
    if (json == null || json.isBlank()) {
      return null;
    }
    try {
      JsonNode o = MAPPER.readTree(json);
      if (o == null || !o.isObject()) {
        return null;
      }
      List<String> zones = new ArrayList<>();
      JsonNode z = o.get("zones");
      if (z != null && z.isArray()) {
        z.forEach(n -> zones.add(n.asString()));
      }
      return new MemberStatus(
          o.path("ready").asBoolean(false),
          instant(o, "since"),
          instant(o, "lastProbe"),
          text(o, "version"),
          text(o, "region"),
          zones,
          text(o, "credential"),
          instant(o, "credentialExpiry"),
          text(o, "reason"));
    } catch (JacksonException | DateTimeParseException e) {
      return null;
    }
  }

  private static String text(JsonNode o, String field) {
    JsonNode v = o.get(field);
    return v == null || v.isNull() ? "" : v.asString();
  }

  private static Instant instant(JsonNode o, String field) {
    String v = text(o, field);
    return v.isEmpty() ? null : Instant.parse(v);
  }
}
