package dev.pier.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pier.util.BuildInfo;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

class BuildInfoMetricTest {
  @Test
  void buildInfoIsOneWithTheVersionAndRevisionAsLabels() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new PierMetrics(registry);
    BuildInfo info = BuildInfo.current();
    assertThat(registry.scrape())
        .contains(
            "pier_build_info{revision=\""
                + info.revision()
                + "\",version=\""
                + info.version()
                + "\"} 1");
  }
}
