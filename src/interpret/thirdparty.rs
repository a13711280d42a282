//! The kinds Karmada interprets with customizations built into it (its
//! `default/thirdparty` interpreter: Kruise, Argo, Flux, Kubeflow, Ray, …),
//! and which of the operations a render depends on each defines.
//!
//! garrison does not include those scripts: they are Karmada's, and a
//! repository can declare any of them as a ResourceInterpreterCustomization,
//! which both Karmada and garrison run first. This table only says where a
//! render without that customization would differ from Karmada (Karmada
//! v1.18.2's list; `componentResource` is behind an alpha gate, off by
//! default, and the status, health and retention rules need a live
//! cluster, so they are not listed).

use crate::model::customization::Rule;

/// (apiVersion, kind, the render-relevant rules Karmada's built-in
/// customization defines).
const BUILT_IN: &[(&str, &str, &[Rule])] = &[
    ("apps.kruise.io/v1alpha1", "AdvancedCronJob", &[DEPS]),
    (
        "apps.kruise.io/v1alpha1",
        "BroadcastJob",
        &[REPLICAS, REVISION, DEPS],
    ),
    (
        "apps.kruise.io/v1alpha1",
        "CloneSet",
        &[REPLICAS, REVISION, DEPS],
    ),
    ("apps.kruise.io/v1alpha1", "DaemonSet", &[DEPS]),
    ("apps.kruise.io/v1alpha1", "SidecarSet", &[REPLICAS, DEPS]),
    (
        "apps.kruise.io/v1alpha1",
        "UnitedDeployment",
        &[REPLICAS, REVISION, DEPS],
    ),
    (
        "apps.kruise.io/v1beta1",
        "StatefulSet",
        &[REPLICAS, REVISION, DEPS],
    ),
    (
        "argoproj.io/v1alpha1",
        "Workflow",
        &[REPLICAS, REVISION, DEPS],
    ),
    ("flink.apache.org/v1beta1", "FlinkDeployment", &[REPLICAS]),
    ("helm.toolkit.fluxcd.io/v2beta1", "HelmRelease", &[DEPS]),
    ("kubeflow.org/v1", "Notebook", &[REPLICAS]),
    ("kubeflow.org/v1", "PyTorchJob", &[DEPS]),
    ("kubeflow.org/v1", "TFJob", &[DEPS]),
    ("kustomize.toolkit.fluxcd.io/v1", "Kustomization", &[DEPS]),
    ("ray.io/v1", "RayJob", &[DEPS]),
    ("ray.io/v1", "RayService", &[REPLICAS, REVISION, DEPS]),
    ("source.toolkit.fluxcd.io/v1", "GitRepository", &[DEPS]),
    ("source.toolkit.fluxcd.io/v1beta2", "Bucket", &[DEPS]),
    ("source.toolkit.fluxcd.io/v1beta2", "HelmChart", &[DEPS]),
    (
        "source.toolkit.fluxcd.io/v1beta2",
        "HelmRepository",
        &[DEPS],
    ),
    ("source.toolkit.fluxcd.io/v1beta2", "OCIRepository", &[DEPS]),
];

const REPLICAS: Rule = Rule::ReplicaResource;
const REVISION: Rule = Rule::ReplicaRevision;
const DEPS: Rule = Rule::DependencyInterpretation;

/// Whether Karmada has a built-in customization for the kind at all.
pub fn built_in(api_version: &str, kind: &str) -> bool {
    BUILT_IN
        .iter()
        .any(|(v, k, _)| *v == api_version && *k == kind)
}

/// Whether Karmada has a built-in customization of `rule` for the kind.
pub fn karmada_defines(api_version: &str, kind: &str, rule: Rule) -> bool {
    BUILT_IN
        .iter()
        .any(|(v, k, rules)| *v == api_version && *k == kind && rules.contains(&rule))
}

/// Where Karmada publishes the built-in customization of the kind.
pub fn source(api_version: &str, kind: &str) -> String {
    format!("https://github.com/karmada-io/karmada/blob/v1.18.2/pkg/resourceinterpreter/default/thirdparty/resourcecustomizations/{api_version}/{kind}/customizations.yaml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_answers_by_kind_and_rule() {
        assert!(karmada_defines(
            "apps.kruise.io/v1alpha1",
            "CloneSet",
            Rule::ReplicaResource
        ));
        assert!(karmada_defines(
            "kubeflow.org/v1",
            "Notebook",
            Rule::ReplicaResource
        ));
        assert!(!karmada_defines(
            "kubeflow.org/v1",
            "Notebook",
            Rule::ReplicaRevision
        ));
        assert!(!karmada_defines(
            "apps/v1",
            "Deployment",
            Rule::ReplicaResource
        ));
        assert!(!karmada_defines(
            "apps.kruise.io/v1beta1",
            "CloneSet",
            Rule::ReplicaResource
        ));
        assert!(built_in("ray.io/v1", "RayJob"));
        assert!(!built_in("apps/v1", "Deployment"));
    }
}
