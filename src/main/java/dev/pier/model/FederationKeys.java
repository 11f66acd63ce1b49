package dev.pier.model;

/** The annotations, labels and finalizers federation reads and writes. */
public final class FederationKeys {
  /** {@code "true"} on a host Service federates it. */
  public static final String FEDERATED_ANNOTATION = "pier.dev/federated";

  /** Comma-separated member names a host Service goes to. */
  public static final String CLUSTERS_ANNOTATION = "pier.dev/clusters";

  /** A label selector over the members' labels that picks where a host Service goes. */
  public static final String CLUSTER_SELECTOR_ANNOTATION = "pier.dev/cluster-selector";

  /** {@code "orphan"} leaves the member copies in place when the host Service is deleted. */
  public static final String DELETE_POLICY_ANNOTATION = "pier.dev/delete-policy";

  /** On member Services and namespaces Pier made; the value is the federation's name. */
  public static final String FEDERATION_LABEL = "pier.dev/federation";

  /** On member Services: the uid of the host cluster's {@code kube-system} namespace. */
  public static final String HOST_CLUSTER_UID_ANNOTATION = "pier.dev/host-cluster-uid";

  /** On member Services: the uid of the host Service they copy. */
  public static final String HOST_SERVICE_UID_ANNOTATION = "pier.dev/host-service-uid";

  /**
   * On member Services: the label and annotation keys Pier copied from the host Service, so that
   * the next write removes only those the host dropped and leaves every other key (another
   * controller's in the member) alone.
   */
  public static final String COPIED_KEYS_ANNOTATION = "pier.dev/copied-keys";

  /**
   * On a federated host Service: Pier's record of its copies, by member, one JSON object: the uid
   * of the copy Pier made there, or {@code pending:<nonce>} while one is to be made ({@code
   * {"east":"<uid>","west":"pending:<nonce>"}}). A member Service with the federation's marks is
   * Pier's copy only with the uid recorded here (or the pending nonce, until the uid is). Written
   * by the host's side only: with the finalizer, when a copy is wanted, made or gone; it goes with
   * the finalizer.
   */
  public static final String COPY_UIDS_ANNOTATION = "pier.dev/copy-uids";

  /**
   * On a copy Pier created: the nonce of the intent in the host Service's record it was made for,
   * which proves it Pier's until the host side has recorded its uid (a Pier that stopped in between
   * does not strand it).
   */
  public static final String COPY_NONCE_ANNOTATION = "pier.dev/copy-nonce";

  /**
   * The Secret in {@code federation.secretNamespace}, named this and the federation's name, that
   * keeps the uids of the copies a release left behind (their member unreachable until the delete
   * timeout) once the host Service, and the record on it, is gone: data keys {@code
   * <member>.<namespace>.<name>}, values the uids.
   */
  public static final String LEFT_COPIES_SECRET_PREFIX = "pier-left-copies-";

  /** The field manager of Pier's writes to member copies (server-side apply, and creates). */
  public static final String COPY_FIELD_MANAGER = "pier-federation";

  /**
   * The manager Pier's whole-object writes to copies ran under before it applied server-side: the
   * Kubernetes client's default. What it owns on a copy moves to {@link #COPY_FIELD_MANAGER} once.
   */
  public static final String LEGACY_FIELD_MANAGER = "fabric8-kubernetes-client";

  public static final String FINALIZER = "federation.kubernetes.io/delete-from-underlying-clusters";
  public static final String ORPHAN_FINALIZER = "orphan";
  public static final String INGRESSES_ANNOTATION = "federation.kubernetes.io/service-ingresses";

  /**
   * On a federated host Service while its status and DNS names hold unreachable members as last
   * seen (the panic threshold): since when, RFC 3339. Gone when the hold ends.
   */
  public static final String NAMES_HELD_ANNOTATION = "pier.dev/names-held-since";

  /** On the Secrets that join members to the federation. */
  public static final String CLUSTER_SECRET_LABEL = "pier.dev/cluster";

  /**
   * On a member Secret: what leaving does to the copies Pier owns there. {@code orphan} (the
   * default) leaves them serving without Pier's marks; {@code delete-copies} deletes them.
   */
  public static final String LEAVE_POLICY_ANNOTATION = "pier.dev/leave-policy";

  /**
   * On the Secrets that joined members: Pier's, so that a member Secret deleted while Pier is down
   * stays until Pier has recorded the member's leave.
   */
  public static final String MEMBER_SECRET_FINALIZER = "pier.dev/member-leave";

  /**
   * On the Secret Pier keeps for a member that is leaving ({@code pier-leaving-<member>}): the
   * member's name. The record carries the member's last kubeconfig, so that the leave is carried
   * out with it after a restart too.
   */
  public static final String LEAVING_LABEL = "pier.dev/leaving";

  /**
   * On a member Secret, {@code "true"}: when the Secret goes, its member leaves at once instead of
   * after {@code federation.leaveGrace} ({@code pier unjoin --now}).
   */
  public static final String LEAVE_NOW_ANNOTATION = "pier.dev/leave-now";

  /** On a leave record: when the member leaves, RFC 3339. */
  public static final String LEAVE_AT_ANNOTATION = "pier.dev/leave-at";

  /**
   * On a member Secret: the member's state as the leading Pier last saw it, one JSON object ({@code
   * dev.pier.federation.MemberStatus}): ready, last probe, the member's version, region, zones,
   * credential expiry. Written by Pier only, when the state changes, and its last probe at most
   * once a minute otherwise.
   */
  public static final String MEMBER_STATUS_ANNOTATION = "pier.dev/member-status";

  private FederationKeys() {}
}
