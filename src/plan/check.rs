//! The faults in cross-references that Karmada's webhooks or controllers
//! would refuse, and policies that match nothing (almost always a typo).

use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::model::inputs::Inputs;
use crate::overrides::{self, OverridePolicyRef};
use crate::schedule::policy_match;
use std::collections::BTreeSet;

/// Faults in cross-references that Karmada's webhooks or controllers would reject.
pub(super) fn references(inputs: &Inputs, diagnostics: &mut Diagnostics) {
    let clusters: BTreeSet<&str> = inputs.clusters.iter().map(|c| c.name.as_str()).collect();
    let unknown = |name: &str, origin: Origin, what: &str| {
        Diagnostic::error(
            Code::UnknownCluster,
            format!("cluster `{name}` in {what} is not in the fleet"),
        )
        .at(origin)
        .help(format!(
            "define it with a Cluster or ManagedCluster document, or fix the name (known: {})",
            if clusters.is_empty() {
                "none".to_string()
            } else {
                clusters
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ))
    };
    for policy in &inputs.propagation_policies {
        let placement = &policy.spec.placement;
        if placement.cluster_affinity.is_some() && !placement.cluster_affinities.is_empty() {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidPlacement,
                    "`clusterAffinity` and `clusterAffinities` cannot both be set",
                )
                .at(Origin {
                    file: policy.doc.file,
                    pos: policy
                        .doc
                        .node
                        .locate_key(&["spec", "placement", "clusterAffinities"]),
                })
                .help("keep one of them, as Karmada's webhook requires"),
            );
        }
        let overflow_allowed = matches!(
            placement.division(),
            crate::model::policy::Division::DynamicWeighted
                | crate::model::policy::Division::Aggregated
        );
        for (i, term) in placement.cluster_affinities.iter().enumerate() {
            if term.overflow_affinities.is_none() {
                continue;
            }
            let index = i.to_string();
            let at = policy.doc.at(&[
                "spec",
                "placement",
                "clusterAffinities",
                &index,
                "overflowAffinities",
            ]);
            // Karmada's webhook (ValidatePlacement, ValidateOverflowAffinities).
            let refusal = if !overflow_allowed {
                Some("`overflowAffinities` can only be used with dynamic weight or aggregated scheduling")
            } else if term.affinity() == crate::model::affinity::ClusterAffinity::default() {
                Some("`overflowAffinities` can only be used together with the affinity group's own cluster affinity")
            } else {
                None
            };
            diagnostics.push(match refusal {
                Some(message) => Diagnostic::error(Code::InvalidPlacement, message)
                    .at(at)
                    .help("as Karmada's webhook requires: divide by `dynamicWeight` or `Aggregated`, and select clusters in the group itself"),
                None => Diagnostic::warning(Code::IgnoredField, "garrison does not act on `overflowAffinities` yet: it schedules onto the affinity group's own clusters only, where Karmada also fills the overflow groups, in order, when those lack capacity")
                    .at(at)
                    .help("check the render's replicas per cluster; remove `overflowAffinities` to silence this"),
            });
        }
        let mut names_seen = BTreeSet::new();
        for (i, term) in placement.cluster_affinities.iter().enumerate() {
            if !names_seen.insert(term.affinity_name.as_str())
                || term.affinity_name.is_empty()
                || term.affinity_name.len() > 32
            {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidPlacement,
                        format!(
                            "affinity name `{}` must be unique and 1 to 32 characters",
                            term.affinity_name
                        ),
                    )
                    .at(policy.doc.at(&[
                        "spec",
                        "placement",
                        "clusterAffinities",
                        &i.to_string(),
                        "affinityName",
                    ])),
                );
            }
        }
        let spreads = &placement.spread_constraints;
        for (i, spread) in spreads.iter().enumerate() {
            if spread.spread_by_field.is_some() == spread.spread_by_label.is_some() {
                diagnostics.push(
                    Diagnostic::error(Code::InvalidPlacement, "a spread constraint needs exactly one of `spreadByField` and `spreadByLabel`")
                        .at(policy.doc.at(&["spec", "placement", "spreadConstraints", &i.to_string()])),
                );
            }
        }
        if spreads.iter().any(|s| s.spread_by_field.is_some())
            && !spreads
                .iter()
                .any(|s| s.spread_by_field == Some(crate::model::policy::SpreadField::Cluster))
        {
            diagnostics.push(
                Diagnostic::error(Code::InvalidPlacement, "spread constraints by field must include one with `spreadByField: cluster`")
                    .at(policy.doc.at(&["spec", "placement", "spreadConstraints"]))
                    .help("add `- spreadByField: cluster` with its maxGroups/minGroups, as Karmada's webhook requires"),
            );
        }
        for (i, spread) in spreads.iter().enumerate() {
            let unenforced = spread.spread_by_label.is_some()
                || matches!(
                    spread.spread_by_field,
                    Some(
                        crate::model::policy::SpreadField::Zone
                            | crate::model::policy::SpreadField::Provider
                    )
                );
            if unenforced {
                diagnostics.push(
                    Diagnostic::warning(Code::IgnoredField, "Karmada v1.19 spreads only by `cluster` and `region`; this constraint is not enforced (and alone it selects no cluster, as in Karmada)")
                        .at(policy.doc.at(&["spec", "placement", "spreadConstraints", &i.to_string()])),
                );
            }
        }
        if let Some(ns) = &policy.namespace {
            for (i, selector) in policy.spec.resource_selectors.iter().enumerate() {
                if selector
                    .namespace
                    .as_deref()
                    .is_some_and(|s| !s.is_empty() && s != ns)
                {
                    diagnostics.push(
                        Diagnostic::error(Code::InvalidPlacement, format!("a PropagationPolicy in `{ns}` cannot select templates in another namespace"))
                            .at(policy.doc.at(&["spec", "resourceSelectors", &i.to_string(), "namespace"]))
                            .help("remove the namespace, or use a ClusterPropagationPolicy"),
                    );
                }
            }
        }
        let mut affinities: Vec<(Vec<String>, &crate::model::affinity::ClusterAffinity)> =
            Vec::new();
        if let Some(a) = &placement.cluster_affinity {
            affinities.push((
                vec!["spec".into(), "placement".into(), "clusterAffinity".into()],
                a,
            ));
        }
        let terms: Vec<_> = placement
            .cluster_affinities
            .iter()
            .map(|t| t.affinity())
            .collect();
        for (i, term) in terms.iter().enumerate() {
            affinities.push((
                vec![
                    "spec".into(),
                    "placement".into(),
                    "clusterAffinities".into(),
                    i.to_string(),
                ],
                term,
            ));
        }
        if let Some(weights) = placement
            .replica_scheduling
            .as_ref()
            .and_then(|r| r.weight_preference.as_ref())
        {
            for (i, rule) in weights.static_weight_list.iter().enumerate() {
                affinities.push((
                    vec![
                        "spec".into(),
                        "placement".into(),
                        "replicaScheduling".into(),
                        "weightPreference".into(),
                        "staticWeightList".into(),
                        i.to_string(),
                        "targetCluster".into(),
                    ],
                    &rule.target_cluster,
                ));
            }
        }
        for (path, affinity) in affinities {
            for (field, names) in [
                ("clusterNames", &affinity.cluster_names),
                ("exclude", &affinity.exclude),
            ] {
                for (i, name) in names.iter().enumerate() {
                    if !clusters.contains(name.as_str()) {
                        let mut full: Vec<&str> = path.iter().map(String::as_str).collect();
                        let index = i.to_string();
                        full.push(field);
                        full.push(&index);
                        diagnostics.push(unknown(
                            name,
                            policy.doc.at(&full),
                            &format!("`{field}` of {}", policy.display()),
                        ));
                    }
                }
            }
        }
        if let Some(on) = policy
            .spec
            .suspension
            .as_ref()
            .and_then(|s| s.dispatching_on_clusters.as_ref())
        {
            for (i, name) in on.cluster_names.iter().enumerate() {
                if !clusters.contains(name.as_str()) {
                    let index = i.to_string();
                    diagnostics.push(unknown(
                        name,
                        policy.doc.at(&[
                            "spec",
                            "suspension",
                            "dispatchingOnClusters",
                            "clusterNames",
                            &index,
                        ]),
                        &format!("the suspension of {}", policy.display()),
                    ));
                }
            }
        }
        for (i, name) in policy.spec.dependent_overrides.iter().enumerate() {
            let exists = inputs.override_policies.iter().any(|o| {
                &o.name == name
                    && (o.namespace == policy.namespace
                        || (policy.namespace.is_none() && o.namespace.is_none()))
            });
            if !exists {
                let index = i.to_string();
                diagnostics.push(
                    Diagnostic::error(
                        Code::MissingDependentOverride,
                        format!(
                            "{} depends on override policy `{name}`, which does not exist",
                            policy.display()
                        ),
                    )
                    .at(policy.doc.at(&["spec", "dependentOverrides", &index]))
                    .help("add the override policy, or remove it from `dependentOverrides`"),
                );
            }
        }
    }
    for pinned in &inputs.bindings {
        for (i, target) in pinned.binding.spec.clusters.iter().enumerate() {
            if !clusters.contains(target.name.as_str()) {
                let index = i.to_string();
                diagnostics.push(unknown(
                    &target.name,
                    pinned.doc.at(&["spec", "clusters", &index, "name"]),
                    "a pinned binding",
                ));
            }
        }
    }
    for policy in &inputs.override_policies {
        // A cluster an override names that the fleet lacks (a typo) would
        // leave the override silently unapplied.
        for (rule, target, _) in policy.spec.rules() {
            let Some(target) = target else { continue };
            let base: Vec<String> = std::iter::once("spec".to_string())
                .chain(
                    policy
                        .spec
                        .overriders_pointer(rule)
                        .split('/')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                )
                .collect();
            // `…/overriders` → `…/targetCluster`.
            let mut at: Vec<&str> = base.iter().map(String::as_str).collect();
            at.pop();
            at.push("targetCluster");
            for (field, names) in [
                ("clusterNames", &target.cluster_names),
                ("exclude", &target.exclude),
            ] {
                for (i, name) in names.iter().enumerate() {
                    if !clusters.contains(name.as_str()) {
                        let index = i.to_string();
                        let mut full = at.clone();
                        full.push(field);
                        full.push(&index);
                        diagnostics.push(unknown(
                            name,
                            policy.doc.at(&full),
                            &format!("`{field}` of {}", policy.display()),
                        ));
                    }
                }
            }
        }
        for fault in policy.spec.faults() {
            let segments: Vec<String> = std::iter::once("spec".to_string())
                .chain(
                    fault
                        .0
                        .split('/')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                )
                .collect();
            let refs: Vec<&str> = segments.iter().map(String::as_str).collect();
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidOverride,
                    format!("{}: {}", policy.display(), fault.1),
                )
                .at(policy.doc.at(&refs))
                .help("change the policy as the message says: Karmada's admission webhook refuses it as it is"),
            );
        }
    }
}

/// A policy whose selectors match no template is almost always a typo.
pub(super) fn unused_policies(inputs: &Inputs, diagnostics: &mut Diagnostics) {
    for policy in &inputs.propagation_policies {
        let matches_some = inputs.templates.iter().any(|t| {
            !policy_match::template_is_skipped(t)
                && (policy.namespace.is_none() || policy.namespace == t.key.namespace)
                && crate::model::resource_selector::best_priority(
                    &policy.spec.resource_selectors,
                    &t.view(),
                )
                .is_some()
        });
        if !matches_some {
            diagnostics.push(
                Diagnostic::warning(
                    Code::PolicyMatchesNothing,
                    format!("{} matches no template", policy.display()),
                )
                .at(policy.doc.at(&["spec", "resourceSelectors"]))
                .help(
                    "check apiVersion, kind, namespace, name and labels of its resource selectors",
                ),
            );
        }
    }
    // An override policy that selects nothing overrides nothing: most often
    // a misspelt kind or name in its selectors. (No selectors: every template.)
    let refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(crate::model::inputs::OverridePolicy::as_ref)
        .collect();
    for (policy, reference) in inputs.override_policies.iter().zip(&refs) {
        let matches_some = inputs
            .templates
            .iter()
            .any(|t| !overrides::applicable(std::slice::from_ref(reference), &t.view()).is_empty());
        if !matches_some {
            diagnostics.push(
                Diagnostic::warning(
                    Code::PolicyMatchesNothing,
                    format!(
                        "{} selects no template: it overrides nothing",
                        policy.display()
                    ),
                )
                .at(policy.doc.at(&["spec", "resourceSelectors"]))
                .help(
                    "check apiVersion, kind, namespace, name and labels of its resource selectors",
                ),
            );
        }
    }
}
