//! Karmada's `FederatedHPA` (autoscaling.karmada.io/v1alpha1): an
//! autoscaler on the control plane that scales a resource template, whose
//! new replicas are then divided as any others are.
//!
//! Karmada's controller (`pkg/controllers/federatedhpa`,
//! `reconcileAutoscaler`) first keeps the template's replicas within
//! `minReplicas` (1 when absent) and `maxReplicas`, then, inside those
//! bounds, follows the members' metrics. A render has no metrics: it takes
//! the first step, which is what Karmada does whenever no metric can be
//! read, and [`bounded`] is that step. Only typing and the checks of
//! Karmada's webhook here; scaling templates is `load::autoscale`'s job.

use super::document::Document;
use super::meta::ObjectMeta;
use serde::Deserialize;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct FederatedHpaDoc {
    pub metadata: ObjectMeta,
    pub spec: FederatedHpaSpec,
    /// Written by the controller; read so an exported object loads.
    #[serde(default)]
    #[allow(dead_code)]
    pub status: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FederatedHpaSpec {
    pub scale_target_ref: ScaleTargetRef,
    #[serde(default)]
    pub min_replicas: Option<i32>,
    pub max_replicas: i32,
    /// Kubernetes' `autoscaling/v2` MetricSpecs: what a live controller
    /// follows inside the bounds. Kept as written.
    #[serde(default)]
    pub metrics: Option<Value>,
    /// Kubernetes' `autoscaling/v2` scaling behavior, likewise.
    #[serde(default)]
    pub behavior: Option<Value>,
}

/// Kubernetes' `CrossVersionObjectReference`: the template to scale, in
/// the FederatedHPA's namespace.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleTargetRef {
    #[serde(default)]
    pub api_version: String,
    pub kind: String,
    pub name: String,
}

/// One FederatedHPA of the repository, typed and positioned.
#[derive(Clone, Debug, PartialEq)]
pub struct FederatedHpa {
    pub name: String,
    pub namespace: String,
    pub spec: FederatedHpaSpec,
    pub doc: Document,
}

impl FederatedHpa {
    /// `FederatedHPA namespace/name`, for messages.
    pub fn display(&self) -> String {
        format!("FederatedHPA `{}/{}`", self.namespace, self.name)
    }
}

impl FederatedHpaSpec {
    /// `minReplicas`, 1 when absent (the API's documented default).
    pub fn min(&self) -> u64 {
        self.min_replicas
            .map_or(1, |m| u64::try_from(m).unwrap_or(0))
    }

    pub fn max(&self) -> u64 {
        u64::try_from(self.max_replicas).unwrap_or(0)
    }
}

/// What Karmada's webhook refuses (`lifted.ValidateFederatedHPA`): bounds
/// below 1 or crossed (it does not support scaling to zero), a target
/// without a kind or name. Each fault with the field it is at.
pub fn refusals(spec: &FederatedHpaSpec) -> Vec<(&'static [&'static str], String)> {
    let mut faults: Vec<(&'static [&'static str], String)> = Vec::new();
    if let Some(min) = spec.min_replicas.filter(|m| *m < 1) {
        faults.push((
            &["spec", "minReplicas"],
            format!("`spec.minReplicas` is {min}; it must be 1 or more"),
        ));
    }
    if spec.max_replicas < 1 {
        faults.push((
            &["spec", "maxReplicas"],
            format!(
                "`spec.maxReplicas` is {}; it must be 1 or more",
                spec.max_replicas
            ),
        ));
    }
    if let Some(min) = spec.min_replicas.filter(|m| spec.max_replicas < *m) {
        faults.push((
            &["spec", "maxReplicas"],
            format!(
                "`spec.maxReplicas` ({}) is below `spec.minReplicas` ({min})",
                spec.max_replicas
            ),
        ));
    }
    let target = &spec.scale_target_ref;
    let named: [(&'static [&'static str], &str, &str); 2] = [
        (&["spec", "scaleTargetRef", "kind"], "kind", &target.kind),
        (&["spec", "scaleTargetRef", "name"], "name", &target.name),
    ];
    for (path, field, value) in named {
        if let Some(fault) = super::meta::path_segment_fault(value) {
            faults.push((path, format!("`spec.scaleTargetRef.{field}` {fault}")));
        }
    }
    faults
}

/// The replicas Karmada's controller gives a template of `current`
/// replicas when no metric can be read: `maxReplicas` above it, `minReplicas`
/// below it, else unchanged. A template of 0 is left at 0: its members run
/// none, so the controller cannot read their scale and scales nothing
/// (`scaleForTargetCluster` fails on a total of 0).
pub fn bounded(current: u64, spec: &FederatedHpaSpec) -> u64 {
    if current == 0 {
        0
    } else if current > spec.max() {
        spec.max()
    } else if current < spec.min() {
        spec.min()
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(min: Option<i32>, max: i32) -> FederatedHpaSpec {
        FederatedHpaSpec {
            scale_target_ref: ScaleTargetRef {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: "web".into(),
            },
            min_replicas: min,
            max_replicas: max,
            metrics: None,
            behavior: None,
        }
    }

    /// `reconcileAutoscaler`: above the maximum is the maximum, below the
    /// minimum the minimum, inside the bounds unchanged (metrics would
    /// decide there).
    #[test]
    fn replicas_are_kept_within_the_bounds() {
        let bounds = spec(Some(2), 10);
        assert_eq!(
            [1, 2, 5, 10, 12].map(|r| bounded(r, &bounds)),
            [2, 2, 5, 10, 10]
        );
    }

    #[test]
    fn min_replicas_defaults_to_one() {
        assert_eq!(bounded(3, &spec(None, 2)), 2);
        assert_eq!(spec(None, 2).min(), 1);
    }

    /// Members running no replica have no scale to read: nothing is scaled.
    #[test]
    fn zero_replicas_stay_zero() {
        assert_eq!(bounded(0, &spec(Some(3), 10)), 0);
    }

    #[test]
    fn the_webhook_refuses_crossed_or_zero_bounds_and_empty_targets() {
        let mut crossed = spec(Some(5), 3);
        crossed.scale_target_ref.name = String::new();
        let faults: Vec<String> = refusals(&crossed).into_iter().map(|(_, f)| f).collect();
        assert_eq!(
            faults,
            [
                "`spec.maxReplicas` (3) is below `spec.minReplicas` (5)",
                "`spec.scaleTargetRef.name` must not be empty"
            ]
        );
        let zero: Vec<String> = refusals(&spec(Some(0), 0))
            .into_iter()
            .map(|(_, f)| f)
            .collect();
        assert_eq!(
            zero,
            [
                "`spec.minReplicas` is 0; it must be 1 or more",
                "`spec.maxReplicas` is 0; it must be 1 or more"
            ]
        );
        assert!(refusals(&spec(None, 1)).is_empty());
    }
}
