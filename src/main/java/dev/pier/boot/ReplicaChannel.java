package dev.pier.boot;

import dev.pier.config.ConfigException;
import dev.pier.shards.ScaleOutOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.MFC;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.UFC;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.dns.DNS_PING;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;
import org.jgroups.util.TLS;
import org.jgroups.util.TLSClientAuth;

/**
 * The JGroups channel that carries the replicas' membership: TCP on {@code scaleOut.host} and
 * {@code scaleOut.port}, every connection on mutual TLS with the replicas' certificate and CA (a
 * process without a certificate the CA signed completes no handshake, so it neither joins, reads
 * nor sends), discovery by the static member list or by the headless Service's DNS name, heartbeat
 * failure detection over the same connections (no second, unprotected socket as {@code FD_SOCK2}
 * would open), and JGroups' usual reliable-delivery protocols.
 */
final class ReplicaChannel {
  private ReplicaChannel() {}

  /**
   * A channel not yet connected; {@code tls} null runs plain TCP ({@code scaleOut.tls.insecure}).
   * {@code nodeName} becomes the member's logical name, the cluster node id that Pier's replica
   * Lease names.
   */
  static JChannel create(
      ScaleOutOptions options, String namespace, SSLContext tls, String nodeName) {
    TCP transport = new TCP();
    transport.setBindPort(options.port());
    transport.setPortRange(0);
    if (!options.host().isEmpty()) {
      transport.setBindAddress(address("scaleOut.host", options.host()));
    }
    List<Protocol> stack = new ArrayList<>();
    stack.add(transport);
    stack.add(discovery(options, namespace));
    stack.add(new MERGE3().setMinInterval(2_000).setMaxInterval(5_000));
    long timeout = Math.max(2_000, options.heartbeatTimeout().toMillis());
    stack.add(new FD_ALL3().setTimeout(timeout).setInterval(Math.min(1_000, timeout / 2)));
    stack.add(new VERIFY_SUSPECT2().setTimeout(1_000));
    stack.add(new NAKACK2());
    stack.add(new UNICAST3());
    stack.add(new STABLE());
    stack.add(new GMS().setJoinTimeout(2_000).printLocalAddress(false));
    stack.add(new UFC());
    stack.add(new MFC());
    stack.add(new FRAG4());
    try {
      JChannel channel = new JChannel(stack);
      channel.name(nodeName);
      if (tls != null) {
        // Set after the stack's init, which would otherwise put a plain factory in its place.
        transport.setSocketFactory(
            new TLS().setClientAuth(TLSClientAuth.NEED).createSocketFactory(tls));
      }
      return channel;
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot make the replicas' membership channel (scaleOut.host '"
              + options.host()
              + "', scaleOut.port "
              + options.port()
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The static member list as given, or the headless Service's name in the cluster's DNS: every
   * ready or not-ready replica's address, each on {@code scaleOut.port}.
   */
  private static Protocol discovery(ScaleOutOptions options, String namespace) {
    if (!options.members().isEmpty()) {
      List<InetSocketAddress> hosts = new ArrayList<>();
      for (String member : options.members()) {
        int colon = member.lastIndexOf(':');
        String host = colon < 0 ? member : member.substring(0, colon);
        int port = colon < 0 ? options.port() : Integer.parseInt(member.substring(colon + 1));
        hosts.add(new InetSocketAddress(address("scaleOut.members", host), port));
      }
      return new TCPPING().setInitialHosts(hosts).setPortRange(0);
    }
    return new DNS_PING().setDNSQuery(serviceName(options, namespace));
  }

  /** {@code <service>.<namespace>.svc.<scaleOut.clusterDomain>}, the headless Service's name. */
  static String serviceName(ScaleOutOptions options, String namespace) {
    return options.kubernetesService()
        + "."
        + (namespace.isEmpty() ? "default" : namespace)
        + ".svc."
        + options.clusterDomain();
  }

  private static InetAddress address(String option, String host) {
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new ConfigException(option + ": cannot resolve '" + host + "': " + e.getMessage());
    }
  }
}
