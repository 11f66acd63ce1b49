package dev.pier.cli;

import dev.pier.config.Durations;
import dev.pier.dns.publish.DnsOptions;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The operator's commands, {@code pier join|unjoin|status} (also {@code kubectl pier ...}): they
 * talk to the host and member API servers with the operator's kubeconfig, never to Pier itself; and
 * {@code pier scale-out-certs}, which writes files only.
 */
public final class Cli {
  public static final Set<String> COMMANDS = Set.of("join", "unjoin", "status", "scale-out-certs");

  private Cli() {}

  public static boolean isCommand(String[] args) {
    return args.length > 0 && COMMANDS.contains(args[0]);
  }

  /** Runs {@code args[0]} with the rest; returns the exit status (0, 1 failed, 2 usage). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    if (rest.contains("-h") || rest.contains("--help")) {
      out.print(usage(args[0]));
      return 0;
    }
    try {
      return switch (args[0]) {
        case "join" -> Join.run(rest, out);
        case "unjoin" -> Unjoin.run(rest, out);
        case "scale-out-certs" -> ScaleOutCerts.run(rest, out);
        default -> Status.run(rest, out);
      };
    } catch (CliException e) {
      err.println("pier " + args[0] + ": " + e.getMessage());
      if (e.status() == CliException.USAGE) {
        err.println("(pier " + args[0] + " --help lists the flags)");
      }
      return e.status();
    } catch (RuntimeException e) {
      err.println("pier " + args[0] + ": failed: " + e);
      return CliException.FAILED;
    }
  }

  static String usage(String command) {
    String common =
        "  --host-kubeconfig FILE, --host-context NAME   the host cluster (default: $KUBECONFIG,"
            + " else $HOME/.kube/config, current context)\n"
            + "  --secret-namespace NS   where the member Secrets live in the host (default pier,"
            + " federation.secretNamespace)\n";
    return switch (command) {
      case "scale-out-certs" ->
          "pier scale-out-certs --out DIR [flags]: write the material of scale-out's mutual TLS"
              + " (a CA, ca.crt, and the replicas' certificate and key it signed, tls.crt and"
              + " tls.key) for the Secret the replicas mount (docs/scale-out.md)\n"
              + "  --out DIR   where to write the three files\n"
              + "  --valid-for D   how long the certificates are valid (default 87600h)\n"
              + "  --force   replace files of an earlier set\n";
      case "join" ->
          "pier join NAME [flags]: make a cluster a federation member\n"
              + common
              + "  --member-kubeconfig FILE, --member-context NAME   the cluster that joins\n"
              + "  --region R, --zones A,B, --labels k=v,...   topology and placement labels\n"
              + "  --token-duration D   the token's lifetime (default 8760h, at least 10m)\n"
              + "  --rotate-token   mint a new token (the old one stays valid until it expires)\n"
              + "  --load-balancers   also apply k8s/rbac.yaml in the member, bound to the federation"
              + " identity\n"
              + "  --load-balancer-provider JSON   run Pier's load balancers in the member with this"
              + " provider ({\"provider\": \"hetzner\", \"hetzner.location\": \"fsn1\"}; implies"
              + " --load-balancers)\n"
              + "  --provider-token-file FILE   that provider's API token\n"
              + "  --provider-ca-file FILE   PEM certificates the webhook provider's HTTPS endpoint"
              + " is checked against instead of the JVM's\n"
              + "  --namespaces A,B   grant Pier a Role in these namespaces only (made when missing),"
              + " for federation.memberScope: namespaces\n"
              + "  --wait D   how long to wait for Pier to report the member ready (default 2m;"
              + " 0: do not wait)\n"
              + "  --dry-run   print every object it would create and write nothing\n";
      case "unjoin" ->
          "pier unjoin NAME [flags]: make a member leave the federation\n"
              + common
              + "  --delete-copies --yes   delete the copies Pier owns there (default: orphan"
              + " them)\n"
              + "  --now   skip federation.leaveGrace\n"
              + "  --wait D   how long to wait for Pier to report the member gone (default 2m)\n"
              + "  --delete-rbac   then remove the member's RBAC (needs --member-kubeconfig or"
              + " --member-context)\n";
      default ->
          "pier status [NAMESPACE/NAME] [flags]: the federation as the host API shows it; with"
              + " a federated Service, that Service and its Events\n"
              + common
              + "  -o table|json   output format (default table)\n"
              + "  --expiry-warning D   warn about credentials expiring within D (default "
              + Durations.format(Status.DEFAULT_EXPIRY_WARNING)
              + ", as federation.credentialExpiryWarning)\n"
              + "  --dns-suffix S   also list each Service's DNS names under S (Pier's dns.suffix)"
              + " with what the DNS server answers now\n"
              + "  --dns-federation F   the federation label in those names (default "
              + DnsOptions.DEFAULT_FEDERATION
              + ", as dns.federation)\n"
              + "  --dns-server HOST[:PORT]   the DNS server to ask (default: the system's"
              + " resolver)\n";
    };
  }
}
