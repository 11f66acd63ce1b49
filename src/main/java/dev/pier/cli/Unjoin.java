package dev.pier.cli;

import dev.pier.config.Durations;
import dev.pier.federation.LeavePolicy;
import dev.pier.federation.LeaveRecord;
import dev.pier.kube.RbacFiles;
import dev.pier.model.FederationKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * {@code pier unjoin NAME}: records the leave policy on the member's Secret (orphan unless {@code
 * --delete-copies --yes}), deletes the Secret, and waits until Pier reports the member gone (its
 * leave record goes once the member left); {@code --delete-rbac} then removes the member's RBAC.
 */
final class Unjoin {
  static final Duration DEFAULT_WAIT = Duration.ofMinutes(2);
  static final Set<String> VALUED =
      KubeTarget.flags(KubeTarget.HOST_FLAGS, KubeTarget.MEMBER_FLAGS, Set.of("--wait"));
  static final Set<String> SWITCHES = Set.of("--delete-copies", "--yes", "--now", "--delete-rbac");

  private Unjoin() {}

  static int run(List<String> args, PrintStream out) {
    Flags f = Flags.parse(args, VALUED, SWITCHES);
    String name = f.name("cluster NAME");
    String ns = Status.secretNamespace(f);
    Duration wait = f.duration("--wait", DEFAULT_WAIT);
    boolean deleteCopies = f.on("--delete-copies");
    boolean deleteRbac = f.on("--delete-rbac");
    KubeTarget hostTarget =
        KubeTarget.of("host", f.string("--host-kubeconfig", ""), f.string("--host-context", ""));
    KubeTarget memberTarget =
        deleteRbac
            ? KubeTarget.of(
                "member", f.string("--member-kubeconfig", ""), f.string("--member-context", ""))
            : null;
    try (KubernetesClient host = hostTarget.client()) {
      Secret secret = secret(host, ns, name);
      if (deleteCopies) {
        List<String> copies = copies(host, ns, name);
        out.println(
            "--delete-copies: Pier deletes the copies it owns in cluster "
                + name
                + (copies.isEmpty()
                    ? " (the host shows none now)"
                    : ":\n  " + String.join("\n  ", copies)));
        if (!f.on("--yes")) {
          throw CliException.usage(
              "flag --delete-copies: deleting copies needs --yes; nothing was changed");
        }
      }
      if (secret != null) {
        recordAndDelete(host, ns, name, secret, deleteCopies, f.on("--now"), out);
      } else if (record(host, ns, name) == null) {
        out.println("cluster " + name + ": not joined by a Secret in namespace " + ns);
        if (!deleteRbac) {
          throw CliException.failed("cluster " + name + " is not a member joined by pier join");
        }
      }
      if (!awaitGone(host, ns, name, wait, out)) {
        if (deleteRbac) {
          out.println(
              "--delete-rbac: the member's RBAC stays until it left; run pier unjoin "
                  + name
                  + " --delete-rbac again then");
        }
        return 0;
      }
    }
    if (deleteRbac) {
      try (KubernetesClient member = memberTarget.client()) {
        List<HasMetadata> rbac =
            new ArrayList<>(PackagedManifests.load(RbacFiles.FEDERATION_MEMBER));
        Collections.reverse(rbac);
        for (HasMetadata o : rbac) {
          out.println(
              "member "
                  + name
                  + ": "
                  + Apply.describe(o)
                  + (Apply.delete(member, o) ? " deleted" : " already gone"));
        }
      }
    }
    return 0;
  }

  private static Secret secret(KubernetesClient host, String ns, String name) {
    try {
      List<Secret> found =
          host.secrets()
              .inNamespace(ns)
              .withLabel(FederationKeys.CLUSTER_SECRET_LABEL, name)
              .list()
              .getItems();
      if (found.size() > 1) {
        throw CliException.failed(
            "cluster "
                + name
                + " is joined by "
                + found.size()
                + " Secrets in namespace "
                + ns
                + "; delete all but one by hand first");
      }
      return found.isEmpty() ? null : found.get(0);
    } catch (KubernetesClientException e) {
      throw CliException.failed(
          "host: cannot read Secrets in namespace " + ns + ": " + Apply.message(e));
    }
  }

  private static Secret record(KubernetesClient host, String ns, String name) {
    try {
      return host.secrets().inNamespace(ns).withName(LeaveRecord.name(name)).get();
    } catch (KubernetesClientException e) {
      throw CliException.failed("host: cannot read the leave record: " + Apply.message(e));
    }
  }

  /** The host Services that list a copy in the member, as namespace/name. */
  private static List<String> copies(KubernetesClient host, String ns, String member) {
    List<String> out = new ArrayList<>();
    for (StatusReport.ServiceRow s : Status.read(host, ns).services()) {
      if (s.copies().stream().anyMatch(c -> c.cluster().equals(member))) {
        out.add("service/" + s.name() + " (namespace " + s.namespace() + ")");
      }
    }
    return out;
  }

  private static void recordAndDelete(
      KubernetesClient host,
      String ns,
      String name,
      Secret secret,
      boolean deleteCopies,
      boolean now,
      PrintStream out) {
    String secretName = secret.getMetadata().getName();
    JsonObject annotations =
        new JsonObject()
            .put(
                FederationKeys.LEAVE_POLICY_ANNOTATION,
                deleteCopies ? LeavePolicy.DELETE_COPIES_VALUE : LeavePolicy.ORPHAN_VALUE);
    annotations.put(FederationKeys.LEAVE_NOW_ANNOTATION, now ? "true" : null);
    try {
      host.secrets()
          .inNamespace(ns)
          .withName(secretName)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              new JsonObject()
                  .put("metadata", new JsonObject().put("annotations", annotations))
                  .encode());
      out.println(
          "host: secret/"
              + secretName
              + " (namespace "
              + ns
              + ") leave policy "
              + (deleteCopies ? "delete-copies" : "orphan (the copies stay, without Pier's marks)")
              + (now ? ", leaving now" : ", leaving after federation.leaveGrace"));
      host.secrets().inNamespace(ns).withName(secretName).delete();
      out.println("host: secret/" + secretName + " (namespace " + ns + ") deleted");
    } catch (KubernetesClientException e) {
      throw CliException.failed("cannot unjoin cluster " + name + ": " + Apply.message(e));
    }
  }

  /**
   * Waits until the member left: its Secret is gone (Pier recorded the leave) and so is the leave
   * record (Pier carried the leave out). Returns false when the leave is due after the deadline.
   */
  private static boolean awaitGone(
      KubernetesClient host, String ns, String name, Duration wait, PrintStream out) {
    long deadline = System.nanoTime() + wait.toNanos();
    Secret record = null;
    boolean secretGone = false;
    while (true) {
      try {
        secretGone = secret(host, ns, name) == null;
        record = record(host, ns, name);
        if (secretGone && record == null) {
          out.println("cluster " + name + ": left the federation");
          return true;
        }
      } catch (CliException e) {
        // Retried until the deadline.
      }
      if (System.nanoTime() > deadline) {
        break;
      }
      Status.sleep(Status.POLL);
    }
    if (!secretGone) {
      throw CliException.failed(
          "cluster "
              + name
              + ": its Secret is still held by Pier's finalizer after "
              + Durations.format(wait)
              + " (Pier records the leave before it lets the Secret go): is Pier running?");
    }
    Instant at = record == null ? null : LeaveRecord.leaveAt(record);
    if (at != null && at.isAfter(Instant.now())) {
      out.println(
          "cluster "
              + name
              + ": leaves the federation at "
              + at
              + " (federation.leaveGrace; --now skips it); pier status shows it Leaving until then");
      return false;
    }
    throw CliException.failed(
        "cluster "
            + name
            + ": Pier has not carried out its leave within "
            + Durations.format(wait));
  }
}
