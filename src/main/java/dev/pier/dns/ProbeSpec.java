package dev.pier.dns;

import java.util.regex.Pattern;

/**
 * How Pier probes the load-balancer addresses of a federated Service itself (the annotation {@code
 * pier.dev/dns-probe} on its host Service): {@code tcp} (a connection opens and stays open), or
 * {@code http}, {@code http:<path>} or {@code http:<path>:<status>} (a GET of the path answers that
 * status; {@code /} and {@code 200} when left out).
 *
 * @param path the HTTP path, empty for TCP
 * @param status the HTTP status expected, 0 for TCP
 */
public record ProbeSpec(Kind kind, String path, int status) {
  /** The annotation on the host Service. */
  public static final String ANNOTATION = "pier.dev/dns-probe";

  /** The longest path accepted. */
  public static final int MAX_PATH = 256;

  // An absolute path of URI characters, without ':' (it separates the status) or a fragment.
  private static final Pattern PATH = Pattern.compile("/[A-Za-z0-9\\-._~!$&'()*+,;=@/%?]*");

  /** The kinds of probe. */
  public enum Kind {
    TCP,
    HTTP
  }

  public static final ProbeSpec TCP = new ProbeSpec(Kind.TCP, "", 0);

  /**
   * The annotation read.
   *
   * @param spec the probe, or null: no probing
   * @param problem why the value cannot be used (then {@code spec} is null), else null
   */
  public record Parsed(ProbeSpec spec, String problem) {}

  /**
   * @param raw the annotation's value, or null when the Service has none
   */
  public static Parsed parse(String raw) {
    if (raw == null) {
      return new Parsed(null, null);
    }
    String v = raw.trim();
    if (v.equals("tcp")) {
      return new Parsed(TCP, null);
    }
    if (v.equals("http")) {
      return new Parsed(new ProbeSpec(Kind.HTTP, "/", 200), null);
    }
    if (!v.startsWith("http:")) {
      return bad("not tcp, http, http:<path> or http:<path>:<status>");
    }
    String rest = v.substring("http:".length());
    int colon = rest.indexOf(':');
    String path = colon < 0 ? rest : rest.substring(0, colon);
    int status = 200;
    if (colon >= 0) {
      String s = rest.substring(colon + 1);
      if (!s.matches("[1-5][0-9][0-9]")) {
        return bad("'" + s + "' is no HTTP status (100 to 599)");
      }
      status = Integer.parseInt(s);
    }
    if (path.length() > MAX_PATH || !PATH.matcher(path).matches()) {
      return bad(
          "the path must start with / and hold only URI characters, no ':' and at most "
              + MAX_PATH
              + " of them");
    }
    return new Parsed(new ProbeSpec(Kind.HTTP, path, status), null);
  }

  private static Parsed bad(String why) {
    return new Parsed(null, why);
  }

  /** As written in the annotation. */
  @Override
  public String toString() {
    return kind == Kind.TCP ? "tcp" : "http:" + path + ":" + status;
  }
}
