package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.config.ConfigValues;
import dev.pier.config.Option;
import dev.pier.util.Ip;
import java.net.URI;
import java.util.Locale;

/**
 * Refuses, at startup, a plain http URL on another machine for a client that sends a credential:
 * the token or API key would cross the network in clear text. The loopback interface never leaves
 * the machine (a sidecar), and an operator whose network is private end to end says so with the
 * client's {@code allowHttp} option.
 */
final class ClearTextGuard {
  private ClearTextGuard() {}

  /**
   * @param credential what would be sent, for the message (e.g. "the API token")
   * @throws ConfigException naming the URL's option and value and the option that allows it
   */
  static void check(
      ConfigValues config, Option<String> url, Option<Boolean> allow, String credential) {
    String value = config.get(url);
    if (!value.regionMatches(true, 0, "http://", 0, 7)
        || config.get(allow)
        || loopback(host(value))) {
      return;
    }
    throw new ConfigException(
        config.describe(url)
            + ": '"
            + value
            + "' would send "
            + credential
            + " in clear text to another machine: use https, or set "
            + allow.path()
            + ": true if the network between them is private end to end");
  }

  private static String host(String url) {
    try {
      String host = URI.create(url).getHost();
      return host == null ? "" : host;
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  /** localhost, 127.0.0.0/8 or ::1, by name only: nothing is resolved. */
  static boolean loopback(String host) {
    String h = Ip.unbracketed(host.toLowerCase(Locale.ROOT));
    return h.equals("localhost")
        || h.endsWith(".localhost")
        || h.matches("127(\\.\\d{1,3}){3}")
        || h.equals("::1")
        || h.equals("0:0:0:0:0:0:0:1");
  }
}
