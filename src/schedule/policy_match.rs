//! Which propagation policy claims a template (karmada-semantics §b).
//!
//! A PropagationPolicy in the template's namespace always beats any
//! ClusterPropagationPolicy; cluster-scoped templates only see
//! ClusterPropagationPolicies. Among one kind, the highest explicit
//! `priority` wins, then the most specific selector (name over label
//! selector over match-all), then the smaller policy name (Karmada's
//! `pkg/detector/compare.go` ordering). Templates that already carry
//! Karmada's claim annotations stay with that policy while it still matches.

use crate::model::inputs::{PropagationPolicy, Template};
use crate::model::meta::{CPP_NAME_ANNOTATION, PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION};
use crate::model::resource_selector::{best_priority, ImplicitPriority, TemplateView};

/// Why a policy that matched was not chosen, or why one did not match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassedOver {
    pub policy: String,
    pub reason: String,
}

/// The policy chosen for a template, with the ones passed over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyChoice {
    pub policy: usize,
    pub implicit: ImplicitPriority,
    pub passed_over: Vec<PassedOver>,
}

/// Namespaces Karmada never propagates from: its own and, by default, `kube-*`.
pub fn namespace_is_reserved(namespace: &str) -> bool {
    namespace == "karmada-system"
        || namespace == "karmada-cluster"
        || namespace.starts_with("karmada-es-")
        || namespace.starts_with("kube-")
}

/// Whether Karmada would skip this template outright.
pub fn template_is_skipped(template: &Template) -> bool {
    skip_reason(template).is_some()
}

/// Why Karmada's detector never propagates this template, if it does not:
/// its namespace is Karmada's or Kubernetes' own, or it is marked as
/// claimed by another system.
pub fn skip_reason(template: &Template) -> Option<String> {
    if let Some(owner) = template.labels.get(CLAIMED_BY_LABEL) {
        return Some(format!(
            "it carries the label `{CLAIMED_BY_LABEL}: {owner}`, which tells Karmada another system owns it"
        ));
    }
    let namespace = template.key.namespace.as_deref()?;
    namespace_is_reserved(namespace).then(|| {
        format!("Karmada never propagates templates in `{namespace}` (namespaces `kube-*`, `karmada-system`, `karmada-cluster` and `karmada-es-*` are skipped)")
    })
}

/// The label that marks a template as claimed by a system other than Karmada.
pub const CLAIMED_BY_LABEL: &str = "resourcetemplate.karmada.io/claimed-by";

/// Choose the policy for `template` among `policies` (all of them, both kinds).
pub fn choose_policy(template: &Template, policies: &[PropagationPolicy]) -> Option<PolicyChoice> {
    let view = template.view();
    let namespaced = match &template.key.namespace {
        Some(ns) => matching(policies, &view, |p| {
            p.namespace.as_deref() == Some(ns.as_str())
        }),
        None => Vec::new(),
    };
    let cluster_scoped = matching(policies, &view, |p| p.namespace.is_none());

    let claimed = claimed_policy(template, policies, &namespaced, &cluster_scoped);
    type Matches<'m> = &'m [(usize, ImplicitPriority)];
    let (group, others): (Matches<'_>, Matches<'_>) = if !namespaced.is_empty() {
        (&namespaced, &cluster_scoped)
    } else {
        (&cluster_scoped, &[])
    };
    let ranked = ranked(policies, group);
    let (chosen, implicit) = match claimed {
        Some(found) => found,
        None => *ranked.first()?,
    };
    let passed_over = passed_over(
        policies,
        &ranked,
        others,
        (chosen, implicit),
        claimed.is_some(),
    );
    Some(PolicyChoice {
        policy: chosen,
        implicit,
        passed_over,
    })
}

/// The policies of one kind (`in_kind`) whose selectors match the
/// template, by index, with the most specific way each matches it.
fn matching(
    policies: &[PropagationPolicy],
    view: &TemplateView<'_>,
    in_kind: impl Fn(&PropagationPolicy) -> bool,
) -> Vec<(usize, ImplicitPriority)> {
    policies
        .iter()
        .enumerate()
        .filter(|(_, p)| in_kind(p))
        .filter_map(|(i, p)| best_priority(&p.spec.resource_selectors, view).map(|prio| (i, prio)))
        .collect()
}

/// Karmada's order of matching policies (`pkg/detector/compare.go`):
/// highest explicit priority, then most specific selector, then name.
fn ranked(
    policies: &[PropagationPolicy],
    group: &[(usize, ImplicitPriority)],
) -> Vec<(usize, ImplicitPriority)> {
    let mut ranked = group.to_vec();
    ranked.sort_by(|a, b| {
        let pa = &policies[a.0];
        let pb = &policies[b.0];
        pb.spec
            .priority
            .unwrap_or(0)
            .cmp(&pa.spec.priority.unwrap_or(0))
            .then(b.1.cmp(&a.1))
            .then(pa.name.cmp(&pb.name))
    });
    ranked
}

/// The other matching policies, with why each was not chosen: the ranked
/// ones lost to the chosen one; `others` are ClusterPropagationPolicies,
/// which a matching PropagationPolicy outranks.
fn passed_over(
    policies: &[PropagationPolicy],
    ranked: &[(usize, ImplicitPriority)],
    others: &[(usize, ImplicitPriority)],
    chosen: (usize, ImplicitPriority),
    claimed: bool,
) -> Vec<PassedOver> {
    let winner = &policies[chosen.0];
    let mut passed_over = Vec::new();
    for &(index, prio) in ranked {
        if index == chosen.0 {
            continue;
        }
        let p = &policies[index];
        passed_over.push(PassedOver {
            policy: p.display(),
            reason: passed_over_reason(p, prio, winner, chosen.1, claimed),
        });
    }
    for &(index, prio) in others {
        if index == chosen.0 {
            continue;
        }
        let p = &policies[index];
        let reason = if claimed {
            passed_over_reason(p, prio, winner, chosen.1, claimed)
        } else {
            "a PropagationPolicy in the template's namespace always wins over a ClusterPropagationPolicy".into()
        };
        passed_over.push(PassedOver {
            policy: p.display(),
            reason,
        });
    }
    passed_over
}

/// Why `policy` (matching as `prio`) lost to `winner` (matching as
/// `implicit`): the claim, or the first rule of the ranking that tells them apart.
fn passed_over_reason(
    policy: &PropagationPolicy,
    prio: ImplicitPriority,
    winner: &PropagationPolicy,
    implicit: ImplicitPriority,
    claimed: bool,
) -> String {
    let priority = policy.spec.priority.unwrap_or(0);
    let winning_priority = winner.spec.priority.unwrap_or(0);
    if claimed {
        format!("the template is already claimed by {}", winner.display())
    } else if priority != winning_priority {
        format!("explicit priority {priority} is lower than {winning_priority}")
    } else if prio != implicit {
        format!(
            "its selector matches {} while the chosen one matches {}",
            describe(prio),
            describe(implicit)
        )
    } else {
        format!(
            "same priority; `{}` sorts before `{}`",
            winner.name, policy.name
        )
    }
}

fn describe(priority: ImplicitPriority) -> &'static str {
    match priority {
        ImplicitPriority::MatchAll => "every template of the kind",
        ImplicitPriority::MatchLabelSelector => "by label selector",
        ImplicitPriority::MatchName => "by name",
    }
}

/// Karmada keeps a template with the policy named in its claim annotations.
fn claimed_policy(
    template: &Template,
    policies: &[PropagationPolicy],
    namespaced: &[(usize, ImplicitPriority)],
    cluster_scoped: &[(usize, ImplicitPriority)],
) -> Option<(usize, ImplicitPriority)> {
    if let (Some(name), Some(ns)) = (
        template.annotations.get(PP_NAME_ANNOTATION),
        template.annotations.get(PP_NAMESPACE_ANNOTATION),
    ) {
        if let Some(found) = namespaced.iter().find(|(i, _)| {
            &policies[*i].name == name && policies[*i].namespace.as_ref() == Some(ns)
        }) {
            return Some(*found);
        }
    }
    let name = template.annotations.get(CPP_NAME_ANNOTATION)?;
    cluster_scoped
        .iter()
        .find(|(i, _)| &policies[*i].name == name)
        .copied()
}

#[cfg(test)]
mod tests {
    //! Conformance with Karmada's policy choice (`pkg/detector/compare.go`,
    //! `pkg/util/selector.go`), each rule restated in our own words.
    use super::*;
    use crate::diag::FileId;
    use crate::model::inputs::Document;
    use crate::model::meta::ObjectKey;
    use crate::model::policy::PropagationSpec;
    use crate::model::resource_selector::ResourceSelector;
    use crate::model::selector::{LabelSelector, Labels};
    use crate::node::{Node, NodeKind, Pos};
    use std::collections::BTreeMap;

    fn doc() -> Document {
        Document {
            file: FileId(0),
            node: Node {
                pos: Pos::default(),
                kind: NodeKind::Null,
            },
        }
    }

    fn template(
        namespace: Option<&str>,
        labels: &[(&str, &str)],
        annotations: &[(&str, &str)],
    ) -> Template {
        Template {
            key: ObjectKey {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                namespace: namespace.map(String::from),
                name: "web".into(),
            },
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            annotations: annotations
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            value: serde_json::Value::Null,
            written: serde_json::Value::Null,
            fed: Default::default(),
            origin: doc().origin(),
            fort_pin_origin: None,
        }
    }

    enum By {
        All,
        Label,
        Name,
    }

    fn policy(
        name: &str,
        namespace: Option<&str>,
        by: By,
        priority: Option<i32>,
    ) -> PropagationPolicy {
        let selector = ResourceSelector {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: None,
            name: matches!(by, By::Name).then(|| "web".to_string()),
            label_selector: matches!(by, By::Label).then(|| LabelSelector {
                match_labels: Labels::from([("app".to_string(), "web".to_string())]),
                match_expressions: vec![],
            }),
        };
        PropagationPolicy {
            name: name.into(),
            namespace: namespace.map(String::from),
            annotations: BTreeMap::new(),
            spec: PropagationSpec {
                resource_selectors: vec![selector],
                priority,
                ..Default::default()
            },
            doc: doc(),
        }
    }

    fn chosen(template: &Template, policies: &[PropagationPolicy]) -> Option<String> {
        choose_policy(template, policies).map(|c| policies[c.policy].display())
    }

    #[test]
    fn a_namespaced_policy_beats_any_cluster_policy_whatever_its_priority() {
        let policies = [
            policy("cluster", None, By::Name, Some(1000)),
            policy("local", Some("shop"), By::All, None),
        ];
        let t = template(Some("shop"), &[("app", "web")], &[]);
        assert_eq!(
            chosen(&t, &policies).as_deref(),
            Some("PropagationPolicy/shop/local")
        );
    }

    #[test]
    fn a_policy_in_another_namespace_never_matches() {
        let policies = [policy("other", Some("other"), By::Name, None)];
        assert_eq!(chosen(&template(Some("shop"), &[], &[]), &policies), None);
    }

    #[test]
    fn higher_explicit_priority_wins_over_a_more_specific_selector() {
        let policies = [
            policy("by-name", Some("shop"), By::Name, Some(1)),
            policy("by-label", Some("shop"), By::Label, Some(5)),
        ];
        let t = template(Some("shop"), &[("app", "web")], &[]);
        assert_eq!(
            chosen(&t, &policies).as_deref(),
            Some("PropagationPolicy/shop/by-label")
        );
    }

    #[test]
    fn on_equal_priority_name_beats_label_beats_match_all() {
        let t = template(Some("shop"), &[("app", "web")], &[]);
        let policies = [
            policy("a-all", Some("shop"), By::All, None),
            policy("b-label", Some("shop"), By::Label, None),
        ];
        assert_eq!(
            chosen(&t, &policies).as_deref(),
            Some("PropagationPolicy/shop/b-label")
        );
        let policies = [
            policy("a-label", Some("shop"), By::Label, None),
            policy("b-name", Some("shop"), By::Name, None),
        ];
        assert_eq!(
            chosen(&t, &policies).as_deref(),
            Some("PropagationPolicy/shop/b-name")
        );
    }

    #[test]
    fn unset_priority_counts_as_zero_and_negative_priorities_lose() {
        let t = template(Some("shop"), &[], &[]);
        let policies = [
            policy("neg", Some("shop"), By::Name, Some(-1)),
            policy("unset", Some("shop"), By::All, None),
        ];
        assert_eq!(
            chosen(&t, &policies).as_deref(),
            Some("PropagationPolicy/shop/unset")
        );
    }

    #[test]
    fn a_full_tie_goes_to_the_smaller_policy_name() {
        let t = template(Some("shop"), &[], &[]);
        let policies = [
            policy("zeta", Some("shop"), By::All, None),
            policy("alpha", Some("shop"), By::All, None),
        ];
        let choice = choose_policy(&t, &policies);
        assert_eq!(
            choice.as_ref().map(|c| policies[c.policy].name.as_str()),
            Some("alpha")
        );
        let reasons: Vec<String> = choice
            .map(|c| c.passed_over.into_iter().map(|p| p.reason).collect())
            .unwrap_or_default();
        assert_eq!(reasons, ["same priority; `alpha` sorts before `zeta`"]);
    }

    #[test]
    fn cluster_scoped_templates_only_see_cluster_policies() {
        let mut t = template(None, &[], &[]);
        t.key.kind = "Deployment".into();
        let policies = [
            policy("ns", Some("shop"), By::All, Some(9)),
            policy("cluster", None, By::All, None),
        ];
        assert_eq!(
            chosen(&t, &policies).as_deref(),
            Some("ClusterPropagationPolicy/cluster")
        );
    }

    #[test]
    fn claim_annotations_keep_the_template_with_its_policy() {
        let t = template(
            Some("shop"),
            &[],
            &[
                (PP_NAME_ANNOTATION, "old"),
                (PP_NAMESPACE_ANNOTATION, "shop"),
            ],
        );
        let policies = [
            policy("old", Some("shop"), By::All, None),
            policy("new", Some("shop"), By::Name, Some(10)),
        ];
        assert_eq!(
            chosen(&t, &policies).as_deref(),
            Some("PropagationPolicy/shop/old")
        );
    }

    #[test]
    fn a_template_claimed_by_a_cluster_policy_stays_and_is_not_passed_over_itself() {
        let t = template(
            Some("shop"),
            &[("app", "web")],
            &[(CPP_NAME_ANNOTATION, "cluster")],
        );
        let policies = [
            policy("cluster", None, By::Name, None),
            policy("local", Some("shop"), By::All, None),
        ];
        let choice = choose_policy(&t, &policies);
        let passed: Vec<(String, String)> = choice
            .iter()
            .flat_map(|c| &c.passed_over)
            .map(|p| (p.policy.clone(), p.reason.clone()))
            .collect();
        assert_eq!(choice.map(|c| c.policy), Some(0));
        assert_eq!(
            passed,
            vec![(
                "PropagationPolicy/shop/local".to_string(),
                "the template is already claimed by ClusterPropagationPolicy/cluster".to_string()
            )]
        );
    }

    #[test]
    fn reserved_namespaces_are_never_propagated() {
        assert!(template_is_skipped(&template(
            Some("kube-system"),
            &[],
            &[]
        )));
        assert!(template_is_skipped(&template(
            Some("karmada-es-member1"),
            &[],
            &[]
        )));
        assert!(!template_is_skipped(&template(Some("shop"), &[], &[])));
        let claimed = template(
            Some("shop"),
            &[("resourcetemplate.karmada.io/claimed-by", "mcs")],
            &[],
        );
        assert!(template_is_skipped(&claimed));
    }
}
