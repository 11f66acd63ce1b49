package dev.pier.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.Pier;
import dev.pier.boot.PierOptions;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeaderElectionOptionsTest {
  @Test
  void defaultsAreTheUpstreamDurationsAndWorkTogether() {
    LeaderElectionOptions o = new LeaderElectionOptions();
    assertThat(o.getLeaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(o.getRenewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.getRetryPeriod()).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.problem()).isNull();
    assertThat(o.getIdentity()).endsWith("_" + ProcessHandle.current().pid());
  }

  @Test
  void aLeaseShorterThanTheRenewDeadlineIsNamed() {
    assertThat(
            new LeaderElectionOptions()
                .setLeaseDuration(Duration.ofSeconds(5))
                .setRenewDeadline(Duration.ofSeconds(10))
                .problem())
        .isEqualTo("leaseDuration (5s) must be longer than renewDeadline (10s)");
    assertThat(
            new LeaderElectionOptions()
                .setRenewDeadline(Duration.ofSeconds(2))
                .setRetryPeriod(Duration.ofSeconds(2))
                .problem())
        .isEqualTo("renewDeadline (2s) must be longer than 1.2 x retryPeriod (2s)");
  }

  @Test
  void pierRefusesToStartWithDurationsThatCannotWork() {
    Map<String, String> env =
        Map.of(
            PierOptions.LEADER_ELECTION_ENABLED.envName(), "true",
            PierOptions.LEADER_ELECTION_LEASE_DURATION.envName(), "5s");
    ConfigValues config = new ConfigLoader(PierOptions.ALL, env::get).load(null);
    Throwable failure = Pier.start(config).cause();
    assertThat(failure).isInstanceOf(ConfigException.class);
    assertThat(failure.getMessage())
        .contains("leaderElection: leaseDuration (5s) must be longer than renewDeadline (10s)");
  }
}
