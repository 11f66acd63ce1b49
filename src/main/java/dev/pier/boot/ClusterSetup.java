package dev.pier.boot;

import dev.pier.config.ConfigValues;
import dev.pier.model.ClusterSpec;

/**
 * One cluster Pier serves and the option values that hold for it.
 *
 * @param spec the cluster as configured
 * @param config the top-level values, with the cluster's own provider sections over them and its
 *     {@code PIER_CLUSTERS_<NAME>_*} environment variables over those; {@code describe} names where
 *     each value came from
 * @param kubeconfigOrigin where the kubeconfig was set, for errors about it
 */
public record ClusterSetup(ClusterSpec spec, ConfigValues config, String kubeconfigOrigin) {}
