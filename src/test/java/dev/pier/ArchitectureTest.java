package dev.pier;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package map of docs/architecture.md, checked: packages sit on floors and import only their
 * own floor and the floors below; no two packages import each other, directly or in a circle.
 */
class ArchitectureTest {
  static final String[] BASE = {
    "dev.pier.model..",
    "dev.pier.config..",
    "dev.pier.retry..",
    "dev.pier.util..",
    "dev.pier.events..",
    "dev.pier.log.."
  };
  static final String[] POLICY_AND_SPIS = {
    "dev.pier.policy..",
    "dev.pier.cloud",
    "dev.pier.dns",
    "dev.pier.federation",
    "dev.pier.queue..",
    "dev.pier.nodes..",
    "dev.pier.shards.."
  };
  static final String[] ADAPTERS = {
    "dev.pier.kube..",
    "dev.pier.cloud.*..",
    "dev.pier.dns.powerdns..",
    "dev.pier.dns.externaldns..",
    "dev.pier.leader..",
    "dev.pier.metrics.."
  };
  static final String[] CONTROLLERS = {
    "dev.pier.watch..",
    "dev.pier.reconcile..",
    "dev.pier.nodesync..",
    "dev.pier.dns.publish..",
    "dev.pier.orphans..",
    "dev.pier.admin..",
    "dev.pier.federation.members..",
    "dev.pier.federation.sync..",
    "dev.pier.scaleout.."
  };

  private static JavaClasses pier;

  @BeforeAll
  static void importPier() {
    pier =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.pier");
  }

  @Test
  void packagesImportOnlyTheirFloorAndTheFloorsBelow() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Main")
        .definedBy("dev.pier")
        .layer("Commands")
        .definedBy("dev.pier.cli..")
        .layer("Boot")
        .definedBy("dev.pier.boot..")
        .layer("Controllers")
        .definedBy(CONTROLLERS)
        .layer("Adapters")
        .definedBy(ADAPTERS)
        .layer("Policy and SPIs")
        .definedBy(POLICY_AND_SPIS)
        .layer("Base")
        .definedBy(BASE)
        .whereLayer("Main")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Commands")
        .mayOnlyBeAccessedByLayers("Main")
        // The commands check what they write as Pier would (a member's provider settings against
        // the option table), through boot, the floor below theirs.
        .whereLayer("Boot")
        .mayOnlyBeAccessedByLayers("Main", "Commands")
        .whereLayer("Controllers")
        .mayOnlyBeAccessedByLayers("Main", "Commands", "Boot")
        .whereLayer("Adapters")
        .mayOnlyBeAccessedByLayers("Main", "Commands", "Boot", "Controllers")
        .whereLayer("Policy and SPIs")
        .mayOnlyBeAccessedByLayers("Main", "Commands", "Boot", "Controllers", "Adapters")
        .ensureAllClassesAreContainedInArchitecture()
        .check(pier);
  }

  @Test
  void noPackageCycles() {
    slices().matching("dev.pier.(**)").should().beFreeOfCycles().check(pier);
  }
}
