package dev.pier.events;

/**
 * The reasons of the Events Pier's controllers write. The load balancer ones are upstream's service
 * controller's, so that tools watching for them keep working.
 */
public final class EventReasons {
  public static final String ENSURING_LOAD_BALANCER = "EnsuringLoadBalancer";
  public static final String ENSURED_LOAD_BALANCER = "EnsuredLoadBalancer";
  public static final String NO_AVAILABLE_NODES = "UnAvailableLoadBalancer";
  public static final String UPDATED_LOAD_BALANCER = "UpdatedLoadBalancer";
  public static final String UPDATE_LOAD_BALANCER_FAILED = "UpdateLoadBalancerFailed";
  public static final String DELETING_LOAD_BALANCER = "DeletingLoadBalancer";
  public static final String DELETED_LOAD_BALANCER = "DeletedLoadBalancer";
  public static final String DELETE_LOAD_BALANCER_FAILED = "DeleteLoadBalancerFailed";
  public static final String SYNC_LOAD_BALANCER_FAILED = "SyncLoadBalancerFailed";
  public static final String CLASS_NOT_OWNED = "LoadBalancerClassNotOwned";
  public static final String INGRESS_REPLACED = "LoadBalancerIngressReplaced";
  public static final String LOAD_BALANCER_ABANDONED = "LoadBalancerAbandoned";
  public static final String REPAIRED_LOAD_BALANCER = "RepairedLoadBalancer";
  public static final String DELETION_HELD = "LoadBalancerDeletionHeld";
  public static final String LIMIT_REACHED = "LoadBalancerLimitReached";

  public static final String UPDATED_DNS = "UpdatedDNS";
  public static final String SYNC_DNS_FAILED = "SyncDNSFailed";
  public static final String INVALID_DNS_LABEL = "InvalidDNSLabel";
  public static final String DNS_RECORD_CONFLICT = "DNSRecordConflict";
  public static final String INVALID_DNS_NAME = "InvalidDNSName";
  public static final String DNS_RECORD_REJECTED = "DNSRecordRejected";
  public static final String DNS_HOSTNAME_UNRESOLVED = "DNSHostnameUnresolved";
  public static final String INVALID_DNS_ANNOTATION = "InvalidDNSAnnotation";
  public static final String DNS_STRATEGY_UNSUPPORTED = "DNSStrategyUnsupported";

  private EventReasons() {}

  // Federation, on the host Service (and on the Secret or namespace of a member).
  public static final String CREATED_IN_CLUSTER = "CreatedInCluster";
  public static final String UPDATED_IN_CLUSTER = "UpdatedInCluster";
  public static final String DELETED_IN_CLUSTER = "DeletedInCluster";
  public static final String ORPHANED_IN_CLUSTER = "OrphanedInCluster";
  public static final String SYNC_IN_CLUSTER_FAILED = "SyncInClusterFailed";
  public static final String FEDERATION_CONFLICT = "FederatedServiceConflict";
  public static final String CLUSTER_UNREACHABLE = "ClusterUnreachable";
  public static final String FEDERATED_NAMES_HELD = "FederatedNamesHeld";
  public static final String COPY_TERMINATING = "FederatedCopyTerminating";
  public static final String COPY_FIELD_CONFLICT = "FederatedCopyFieldConflict";
  public static final String CLUSTER_NOT_READY = "ClusterNotReady";
  public static final String INVALID_PLACEMENT = "InvalidPlacement";
  public static final String DELETION_TIMED_OUT = "FederatedDeletionTimedOut";
  public static final String DELETED_ORPHANED_COPY = "DeletedOrphanedCopy";
  public static final String FEDERATION_NOT_ALLOWED = "FederationNotAllowed";
  public static final String MEMBER_NAMESPACE_UNREADABLE = "MemberNamespaceUnreadable";
  public static final String MEMBER_CREDENTIAL_EXPIRING = "MemberCredentialExpiring";
  public static final String MEMBER_SETTING_LOWERED = "MemberSettingLowered";
}
