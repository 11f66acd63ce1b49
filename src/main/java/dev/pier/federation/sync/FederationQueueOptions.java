package dev.pier.federation.sync;

import java.time.Duration;

/**
 * How the federation's work queue runs its keys: the {@code reconcile.*} values it shares with the
 * load-balancer queue.
 *
 * @param concurrency keys run at the same time
 * @param minRetryDelay the first retry's delay after a failed run
 * @param maxRetryDelay the longest retry delay
 * @param runDeadline longest run of one key: a run past it frees its slot, and the key runs again
 *     once it ends
 */
public record FederationQueueOptions(
    int concurrency, Duration minRetryDelay, Duration maxRetryDelay, Duration runDeadline) {}
