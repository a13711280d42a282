//! Karmada's `ClusterTaintPolicy` (policy.karmada.io/v1alpha1): taints that
//! Karmada's controller adds to or removes from clusters whose status
//! conditions match.
//!
//! The controller reacts to condition changes and keeps what it did: a
//! taint it added stays until a policy's `removeOnConditions` match. A
//! render sees one moment, so the taints a Cluster document declares stand
//! for that history, and each policy is applied to them once, as the
//! controller's reconcile does (`pkg/controllers/taint`): every targeted
//! cluster, policies in order, `addOnConditions` before
//! `removeOnConditions`. Karmada orders policies by creation time, which a
//! repository does not have; garrison orders them by name.

use super::affinity::ClusterAffinity;
use super::cluster::{Cluster, Condition, Taint, TaintEffect};
use super::meta::ObjectMeta;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTaintPolicyDoc {
    pub metadata: ObjectMeta,
    pub spec: ClusterTaintPolicySpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTaintPolicySpec {
    /// Absent: every cluster.
    #[serde(default)]
    pub target_clusters: Option<ClusterAffinity>,
    #[serde(default)]
    pub add_on_conditions: Vec<MatchCondition>,
    #[serde(default)]
    pub remove_on_conditions: Vec<MatchCondition>,
    pub taints: Vec<PolicyTaint>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchCondition {
    pub condition_type: String,
    pub operator: MatchOperator,
    pub status_values: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatchOperator {
    #[default]
    In,
    NotIn,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyTaint {
    pub key: String,
    pub effect: TaintEffect,
    #[serde(default)]
    pub value: Option<String>,
}

/// A loaded policy: its name and spec.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterTaintPolicy {
    pub name: String,
    pub spec: ClusterTaintPolicySpec,
}

/// What Karmada's webhook refuses in a policy's taints (`validatePolicyTaints`
/// with its default flags): the path under `spec.taints` and why.
pub fn refusals(spec: &ClusterTaintPolicySpec) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, taint) in spec.taints.iter().enumerate() {
        if taint.effect == TaintEffect::NoExecute {
            found.push((i, "a `NoExecute` taint is refused unless Karmada's webhook is started with NoExecute taint policies allowed; garrison has no such switch".to_string()));
        }
        if spec.taints[i + 1..]
            .iter()
            .any(|t| t.key == taint.key && t.effect == taint.effect)
        {
            found.push((
                i,
                format!(
                    "taint `{}:{:?}` is listed twice (the same key and effect)",
                    taint.key, taint.effect
                ),
            ));
        }
    }
    if spec.taints.is_empty() {
        found.push((0, "`taints` needs at least one taint".to_string()));
    }
    found
}

/// Every condition of `matches` holds (Karmada's `conditionMatches`): `In`
/// when the condition is present with one of the values, `NotIn` when it is
/// present with none of them. An empty list never matches.
fn conditions_match(conditions: &[Condition], matches: &[MatchCondition]) -> bool {
    !matches.is_empty()
        && matches.iter().all(|m| {
            let mut present = conditions.iter().filter(|c| c.kind == m.condition_type);
            match m.operator {
                MatchOperator::In => present.any(|c| m.status_values.contains(&c.status)),
                // Karmada's loop lets the last condition of the type decide.
                MatchOperator::NotIn => present
                    .next_back()
                    .is_some_and(|c| !m.status_values.contains(&c.status)),
            }
        })
}

/// Applies `policies` (sorted by name) to `cluster`'s taints, recording which
/// policy added each taint it added.
pub fn apply(policies: &[ClusterTaintPolicy], cluster: &mut Cluster) {
    for policy in policies {
        let targeted = policy
            .spec
            .target_clusters
            .as_ref()
            .is_none_or(|affinity| affinity.matches(&cluster.view(&cluster.labels)));
        if !targeted {
            continue;
        }
        let same = |a: &Taint, b: &PolicyTaint| a.key == b.key && a.effect == b.effect;
        if conditions_match(&cluster.conditions, &policy.spec.add_on_conditions) {
            for taint in &policy.spec.taints {
                if !cluster.taints.iter().any(|t| same(t, taint)) {
                    cluster.taints.push(Taint {
                        key: taint.key.clone(),
                        value: taint.value.clone().filter(|v| !v.is_empty()),
                        effect: taint.effect,
                        time_added: None,
                    });
                    cluster
                        .tainted_by
                        .push((taint.key.clone(), taint.effect, policy.name.clone()));
                }
            }
        }
        if conditions_match(&cluster.conditions, &policy.spec.remove_on_conditions) {
            for taint in &policy.spec.taints {
                if let Some(i) = cluster.taints.iter().position(|t| same(t, taint)) {
                    cluster.taints.remove(i);
                    cluster
                        .tainted_by
                        .retain(|(k, e, _)| !(k == &taint.key && *e == taint.effect));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{FileId, Origin};
    use crate::node::Pos;

    fn cluster(conditions: &[(&str, &str)], taints: &[&str]) -> Cluster {
        Cluster {
            name: "m1".into(),
            namespace: None,
            managed: false,
            labels: [("env".to_string(), "prod".to_string())].into(),
            provider: None,
            region: None,
            zones: Vec::new(),
            taints: taints
                .iter()
                .map(|k| Taint {
                    key: k.to_string(),
                    value: None,
                    effect: TaintEffect::NoSchedule,
                    time_added: None,
                })
                .collect(),
            tainted_by: Vec::new(),
            conditions: conditions
                .iter()
                .map(|(kind, status)| Condition {
                    kind: kind.to_string(),
                    status: status.to_string(),
                    ..Condition::default()
                })
                .collect(),
            paused: false,
            api_enablements: None,
            resource_summary: None,
            resource_models: Vec::new(),
            origin: Origin {
                file: FileId(0),
                pos: Pos::default(),
            },
        }
    }

    fn condition(kind: &str, operator: MatchOperator, values: &[&str]) -> MatchCondition {
        MatchCondition {
            condition_type: kind.into(),
            operator,
            status_values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn not_ready_policy(name: &str) -> ClusterTaintPolicy {
        ClusterTaintPolicy {
            name: name.into(),
            spec: ClusterTaintPolicySpec {
                target_clusters: None,
                add_on_conditions: vec![condition(
                    "Ready",
                    MatchOperator::In,
                    &["False", "Unknown"],
                )],
                remove_on_conditions: vec![condition("Ready", MatchOperator::In, &["True"])],
                taints: vec![PolicyTaint {
                    key: "not-ready".into(),
                    effect: TaintEffect::NoSchedule,
                    value: None,
                }],
            },
        }
    }

    fn keys(cluster: &Cluster) -> Vec<&str> {
        cluster.taints.iter().map(|t| t.key.as_str()).collect()
    }

    // Karmada's controller tests: a matching add condition adds the taint
    // once, a matching remove condition removes it, neither keeps it.
    #[test]
    fn add_and_remove_follow_the_conditions() {
        let policies = [not_ready_policy("health")];
        let mut down = cluster(&[("Ready", "False")], &[]);
        apply(&policies, &mut down);
        assert_eq!(keys(&down), ["not-ready"]);
        assert_eq!(down.tainted_by[0].2, "health");
        apply(&policies, &mut down);
        assert_eq!(keys(&down), ["not-ready"], "never added twice");

        let mut up = cluster(&[("Ready", "True")], &["not-ready", "other"]);
        apply(&policies, &mut up);
        assert_eq!(keys(&up), ["other"]);

        // A condition neither list matches keeps what the cluster declares.
        let mut unknown = cluster(&[("Healthy", "True")], &["not-ready"]);
        apply(&policies, &mut unknown);
        assert_eq!(keys(&unknown), ["not-ready"]);
    }

    #[test]
    fn conditions_are_anded_and_an_empty_list_never_matches() {
        let conditions = [("Ready", "False"), ("NetworkOK", "True")];
        let both = [
            condition("Ready", MatchOperator::In, &["False"]),
            condition("NetworkOK", MatchOperator::NotIn, &["False"]),
        ];
        let as_conditions: Vec<Condition> = conditions
            .iter()
            .map(|(k, s)| Condition {
                kind: k.to_string(),
                status: s.to_string(),
                ..Condition::default()
            })
            .collect();
        assert!(conditions_match(&as_conditions, &both));
        assert!(!conditions_match(
            &as_conditions,
            &both[..1]
                .iter()
                .cloned()
                .chain([condition("Ready", MatchOperator::In, &["True"])])
                .collect::<Vec<_>>()
        ));
        assert!(!conditions_match(&as_conditions, &[]));
        // NotIn needs the condition to be present.
        assert!(!conditions_match(
            &[],
            &[condition("Ready", MatchOperator::NotIn, &["True"])]
        ));
    }

    #[test]
    fn target_clusters_limit_the_policy() {
        let mut policy = not_ready_policy("health");
        policy.spec.target_clusters = Some(ClusterAffinity {
            cluster_names: vec!["elsewhere".into()],
            ..ClusterAffinity::default()
        });
        let mut down = cluster(&[("Ready", "False")], &[]);
        apply(&[policy], &mut down);
        assert!(down.taints.is_empty());
    }

    #[test]
    fn the_webhook_refuses_no_execute_and_duplicates() {
        let mut spec = not_ready_policy("p").spec;
        spec.taints.push(PolicyTaint {
            key: "not-ready".into(),
            effect: TaintEffect::NoSchedule,
            value: Some("x".into()),
        });
        spec.taints.push(PolicyTaint {
            key: "evict".into(),
            effect: TaintEffect::NoExecute,
            value: None,
        });
        let found: Vec<usize> = refusals(&spec).into_iter().map(|(i, _)| i).collect();
        assert_eq!(found, [0, 2]);
    }
}
