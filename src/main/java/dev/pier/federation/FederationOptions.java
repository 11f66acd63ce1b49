package dev.pier.federation;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/** How the federation runs: its name, where members join, health thresholds, unready handling. */
public final class FederationOptions {
  public static final String DEFAULT_NAME = "pier";
  public static final String DEFAULT_SECRET_NAMESPACE = "pier";
  public static final List<String> DEFAULT_NAMESPACES = List.of();
  public static final UnreadyClusters DEFAULT_UNREADY_CLUSTERS = UnreadyClusters.KEEP;
  public static final Duration DEFAULT_HEALTH_PERIOD = Duration.ofSeconds(10);
  public static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofSeconds(3);
  public static final int DEFAULT_FAILURE_THRESHOLD = 3;
  public static final int DEFAULT_SUCCESS_THRESHOLD = 1;
  public static final Duration DEFAULT_DELETE_TIMEOUT = Duration.ofMinutes(10);
  public static final int DEFAULT_PANIC_THRESHOLD = 50;
  public static final Duration DEFAULT_MAX_HOLD = Duration.ofHours(1);
  public static final Duration DEFAULT_AGGREGATE_WAIT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_LEAVE_GRACE = Duration.ofMinutes(10);
  public static final boolean DEFAULT_NAMESPACE_OPT_IN = true;
  public static final Duration DEFAULT_CREDENTIAL_EXPIRY_WARNING = Duration.ofDays(30);
  public static final MemberScope DEFAULT_MEMBER_SCOPE = MemberScope.CLUSTER;

  /** What Pier reads and writes in a member without load balancers of its own. */
  public enum MemberScope {
    /** Services, endpoints and Nodes in every namespace; namespaces created for the copies. */
    CLUSTER,
    /**
     * Only the namespaces of {@link #namespaces()}, each of which must exist in the member, with no
     * Node read: what a Role per namespace allows (k8s/rbac-federation-member-namespaced.yaml).
     */
    NAMESPACES
  }

  /** What the aggregated status keeps of a member that is not ready. */
  public enum UnreadyClusters {
    /** The seed's behaviour: the member's last known ingress stays. */
    KEEP,
    /** KubeFed's: the member's ingress leaves the status; its annotation entry turns empty. */
    DROP
  }

  private String name = DEFAULT_NAME;
  private String secretNamespace = DEFAULT_SECRET_NAMESPACE;
  private Set<String> namespaces = Set.copyOf(DEFAULT_NAMESPACES);
  private UnreadyClusters unreadyClusters = DEFAULT_UNREADY_CLUSTERS;
  private Duration healthPeriod = DEFAULT_HEALTH_PERIOD;
  private Duration healthTimeout = DEFAULT_HEALTH_TIMEOUT;
  private int failureThreshold = DEFAULT_FAILURE_THRESHOLD;
  private int successThreshold = DEFAULT_SUCCESS_THRESHOLD;
  private Duration deleteTimeout = DEFAULT_DELETE_TIMEOUT;
  private int panicThreshold = DEFAULT_PANIC_THRESHOLD;
  private Duration maxHold = DEFAULT_MAX_HOLD;
  private Duration aggregateWait = DEFAULT_AGGREGATE_WAIT;
  private Duration leaveGrace = DEFAULT_LEAVE_GRACE;
  private boolean namespaceOptIn = DEFAULT_NAMESPACE_OPT_IN;
  private Duration credentialExpiryWarning = DEFAULT_CREDENTIAL_EXPIRY_WARNING;
  private MemberScope memberScope = DEFAULT_MEMBER_SCOPE;

  public String name() {
    return name;
  }

  public FederationOptions setName(String name) {
    this.name = name;
    return this;
  }

  public String secretNamespace() {
    return secretNamespace;
  }

  public FederationOptions setSecretNamespace(String secretNamespace) {
    this.secretNamespace = secretNamespace;
    return this;
  }

  /** Namespaces whose every Service is federated, with or without the annotation. */
  public Set<String> namespaces() {
    return namespaces;
  }

  public FederationOptions setNamespaces(List<String> namespaces) {
    this.namespaces = Set.copyOf(namespaces);
    return this;
  }

  public UnreadyClusters unreadyClusters() {
    return unreadyClusters;
  }

  public FederationOptions setUnreadyClusters(UnreadyClusters unreadyClusters) {
    this.unreadyClusters = unreadyClusters;
    return this;
  }

  public Duration healthPeriod() {
    return healthPeriod;
  }

  public FederationOptions setHealthPeriod(Duration healthPeriod) {
    this.healthPeriod = healthPeriod;
    return this;
  }

  public Duration healthTimeout() {
    return healthTimeout;
  }

  public FederationOptions setHealthTimeout(Duration healthTimeout) {
    this.healthTimeout = healthTimeout;
    return this;
  }

  public int failureThreshold() {
    return failureThreshold;
  }

  public FederationOptions setFailureThreshold(int failureThreshold) {
    this.failureThreshold = failureThreshold;
    return this;
  }

  public int successThreshold() {
    return successThreshold;
  }

  public FederationOptions setSuccessThreshold(int successThreshold) {
    this.successThreshold = successThreshold;
    return this;
  }

  /** How long a deleted host Service waits for an unreachable member before its finalizer goes. */
  /**
   * Below this percentage of reachable members, a federated Service holds its unreachable members
   * as last seen ({@link HeldMembers}); 0: never.
   */
  public int panicThreshold() {
    return panicThreshold;
  }

  public FederationOptions setPanicThreshold(int panicThreshold) {
    this.panicThreshold = panicThreshold;
    return this;
  }

  /** How long an unreachable member is held as last seen at most. */
  public Duration maxHold() {
    return maxHold;
  }

  public FederationOptions setMaxHold(Duration maxHold) {
    this.maxHold = maxHold;
    return this;
  }

  /**
   * How long a host Service's first addresses wait for the placed members whose load balancers are
   * still on their way ({@link ArrivalWait}); zero: never.
   */
  public Duration aggregateWait() {
    return aggregateWait;
  }

  public FederationOptions setAggregateWait(Duration aggregateWait) {
    this.aggregateWait = aggregateWait;
    return this;
  }

  /**
   * How long a member whose Secret was deleted or unlabelled stays; a Secret for it that returns
   * within the grace changes nothing.
   */
  public Duration leaveGrace() {
    return leaveGrace;
  }

  public FederationOptions setLeaveGrace(Duration leaveGrace) {
    this.leaveGrace = leaveGrace;
    return this;
  }

  /**
   * Whether a host namespace must be opted in (listed in {@link #namespaces} or labelled {@code
   * pier.dev/federation=<name>}, which only those who may edit namespaces can do) before its
   * Services reach the members: without it, whoever can create a Service on the host could create
   * Services, and their namespaces, in every member.
   */
  public boolean namespaceOptIn() {
    return namespaceOptIn;
  }

  public FederationOptions setNamespaceOptIn(boolean namespaceOptIn) {
    this.namespaceOptIn = namespaceOptIn;
    return this;
  }

  /**
   * How long before a member's credential expires it is warned about ({@link CredentialWarning}).
   */
  public Duration credentialExpiryWarning() {
    return credentialExpiryWarning;
  }

  public FederationOptions setCredentialExpiryWarning(Duration credentialExpiryWarning) {
    this.credentialExpiryWarning = credentialExpiryWarning;
    return this;
  }

  /** What Pier reads and writes in a member: every namespace, or those of {@link #namespaces}. */
  public MemberScope memberScope() {
    return memberScope;
  }

  public FederationOptions setMemberScope(MemberScope memberScope) {
    this.memberScope = memberScope;
    return this;
  }

  /** Whether a member is read and written only in {@link #namespaces()}. */
  public boolean namespacedMembers() {
    return memberScope == MemberScope.NAMESPACES;
  }

  public Duration deleteTimeout() {
    return deleteTimeout;
  }

  public FederationOptions setDeleteTimeout(Duration deleteTimeout) {
    this.deleteTimeout = deleteTimeout;
    return this;
  }
}
