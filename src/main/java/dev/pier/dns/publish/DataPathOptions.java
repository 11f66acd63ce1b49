package dev.pier.dns.publish;

import dev.pier.util.EgressPolicy;
import dev.pier.util.RequestFence;
import java.time.Duration;

/**
 * How Pier probes federated Services' load-balancer addresses itself ({@code dns.probe.*}).
 *
 * @param period how often each address is probed
 * @param timeout the most one probe takes
 * @param failureThreshold failed probes in a row after which an address leaves the names
 * @param successThreshold passed probes in a row after which it returns
 * @param panicThreshold below this percentage of a Service's addresses answering, all stay
 * @param egress where a probe may connect: the member providers' rule, the local pools allowed
 * @param fence asked right before each probe goes: the host side's leadership
 */
public record DataPathOptions(
    Duration period,
    Duration timeout,
    int failureThreshold,
    int successThreshold,
    int panicThreshold,
    EgressPolicy egress,
    RequestFence fence) {
  public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(10);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  public static final int DEFAULT_FAILURE_THRESHOLD = 3;
  public static final int DEFAULT_SUCCESS_THRESHOLD = 2;
}
