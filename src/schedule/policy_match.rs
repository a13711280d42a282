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
use crate::model::resource_selector::{best_priority, ImplicitPriority};

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

pub const PP_NAME_ANNOTATION: &str = "propagationpolicy.karmada.io/name";
pub const PP_NAMESPACE_ANNOTATION: &str = "propagationpolicy.karmada.io/namespace";
pub const CPP_NAME_ANNOTATION: &str = "clusterpropagationpolicy.karmada.io/name";

/// Namespaces Karmada never propagates from: its own and, by default, `kube-*`.
pub fn namespace_is_reserved(namespace: &str) -> bool {
    namespace == "karmada-system"
        || namespace == "karmada-cluster"
        || namespace.starts_with("karmada-es-")
        || namespace.starts_with("kube-")
}

/// Whether Karmada would skip this template outright.
pub fn template_is_skipped(template: &Template) -> bool {
    if template
        .labels
        .contains_key("resourcetemplate.karmada.io/claimed-by")
    {
        return true;
    }
    match template.key.namespace.as_deref() {
        Some(ns) => namespace_is_reserved(ns),
        None => false,
    }
}

/// Choose the policy for `template` among `policies` (all of them, both kinds).
pub fn choose_policy(template: &Template, policies: &[PropagationPolicy]) -> Option<PolicyChoice> {
    let view = template.view();
    let namespaced: Vec<(usize, ImplicitPriority)> = match &template.key.namespace {
        Some(ns) => policies
            .iter()
            .enumerate()
            .filter(|(_, p)| p.namespace.as_deref() == Some(ns.as_str()))
            .filter_map(|(i, p)| {
                best_priority(&p.spec.resource_selectors, &view).map(|prio| (i, prio))
            })
            .collect(),
        None => Vec::new(),
    };
    let cluster_scoped: Vec<(usize, ImplicitPriority)> = policies
        .iter()
        .enumerate()
        .filter(|(_, p)| p.namespace.is_none())
        .filter_map(|(i, p)| best_priority(&p.spec.resource_selectors, &view).map(|prio| (i, prio)))
        .collect();

    let claimed = claimed_policy(template, policies, &namespaced, &cluster_scoped);
    type Matches<'m> = &'m [(usize, ImplicitPriority)];
    let (group, others): (Matches<'_>, Matches<'_>) = if !namespaced.is_empty() {
        (&namespaced, &cluster_scoped)
    } else {
        (&cluster_scoped, &[])
    };
    let mut ranked: Vec<(usize, ImplicitPriority)> = group.to_vec();
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
    let (chosen, implicit) = match claimed {
        Some(found) => found,
        None => *ranked.first()?,
    };
    let mut passed_over = Vec::new();
    for &(index, prio) in &ranked {
        if index == chosen {
            continue;
        }
        let p = &policies[index];
        let winner = &policies[chosen];
        let reason = if claimed.is_some() {
            format!("the template is already claimed by {}", winner.display())
        } else if p.spec.priority.unwrap_or(0) != winner.spec.priority.unwrap_or(0) {
            format!(
                "explicit priority {} is lower than {}",
                p.spec.priority.unwrap_or(0),
                winner.spec.priority.unwrap_or(0)
            )
        } else if prio != implicit {
            format!(
                "its selector matches {} while the chosen one matches {}",
                describe(prio),
                describe(implicit)
            )
        } else {
            format!("same priority; `{}` sorts before `{}`", winner.name, p.name)
        };
        passed_over.push(PassedOver {
            policy: p.display(),
            reason,
        });
    }
    for &(index, _) in others {
        passed_over.push(PassedOver {
            policy: policies[index].display(),
            reason: "a PropagationPolicy in the template's namespace always wins over a ClusterPropagationPolicy".into(),
        });
    }
    Some(PolicyChoice {
        policy: chosen,
        implicit,
        passed_over,
    })
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
