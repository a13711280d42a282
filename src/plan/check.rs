//! The faults in cross-references that Karmada's webhooks or controllers
//! would refuse, and policies that match nothing (almost always a typo).

use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::interpret;
use crate::model::affinity::{ClusterAffinity, FieldOperator};
use crate::model::customization::Rule;
use crate::model::inputs::Template;
use crate::model::inputs::{Inputs, OverridePolicy, PropagationPolicy};
use crate::model::meta::ObjectKey;
use crate::model::policy::{Division, SpreadField};
use crate::model::resource_selector::ResourceSelector;
use crate::overrides::{self, OverridePolicyRef};
use crate::schedule::policy_match;
use std::collections::{BTreeMap, BTreeSet};

/// Faults in cross-references that Karmada's webhooks or controllers would reject.
pub(super) fn references(inputs: &Inputs, diagnostics: &mut Diagnostics) {
    let fleet = Fleet {
        names: inputs.clusters.iter().map(|c| c.name.as_str()).collect(),
    };
    for policy in &inputs.propagation_policies {
        placement(policy, diagnostics);
        for (path, affinity) in affinities(policy) {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            fleet.check_affinity(
                &affinity,
                &path,
                &policy.doc,
                &policy.display(),
                diagnostics,
            );
        }
        for (path, affinity) in validated_affinities(policy) {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            field_operators(&affinity, &path, &policy.doc, diagnostics);
        }
        failover(policy, diagnostics);
        preemption(policy, diagnostics);
        workload_affinity(policy, diagnostics);
        suspension(&fleet, policy, diagnostics);
        dependent_overrides(inputs, policy, diagnostics);
        priority_class(inputs, policy, diagnostics);
    }
    for pinned in &inputs.bindings {
        for (i, target) in pinned.binding.spec.clusters.iter().enumerate() {
            let index = i.to_string();
            let at = pinned.doc.at(&["spec", "clusters", &index, "name"]);
            fleet.check(&target.name, at, "a pinned binding", diagnostics);
        }
    }
    for policy in &inputs.override_policies {
        override_targets(&fleet, policy, diagnostics);
        override_faults(policy, diagnostics);
        override_selector_namespaces(policy, diagnostics);
    }
}

/// The clusters of the fleet, for names a policy or binding refers to.
struct Fleet<'a> {
    names: BTreeSet<&'a str>,
}

impl Fleet<'_> {
    /// `name`, written at `at` in `what`, must be a cluster of the fleet.
    fn check(&self, name: &str, at: Origin, what: &str, diagnostics: &mut Diagnostics) {
        if self.names.contains(name) {
            return;
        }
        let known = if self.names.is_empty() {
            "none".to_string()
        } else {
            self.names
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        diagnostics.push(
            Diagnostic::error(
                Code::UnknownCluster,
                format!("cluster `{name}` in {what} is not in the fleet"),
            )
            .at(at)
            .help(format!(
                "define it with a Cluster or ManagedCluster document, or fix the name (known: {known})"
            )),
        );
    }

    /// Every cluster `clusterNames` and `exclude` of `affinity` (written at
    /// `path` of `doc`, in the policy `owner`) name.
    fn check_affinity(
        &self,
        affinity: &ClusterAffinity,
        path: &[&str],
        doc: &crate::model::inputs::Document,
        owner: &str,
        diagnostics: &mut Diagnostics,
    ) {
        for (field, names) in [
            ("clusterNames", &affinity.cluster_names),
            ("exclude", &affinity.exclude),
        ] {
            for (i, name) in names.iter().enumerate() {
                let index = i.to_string();
                let mut full = path.to_vec();
                full.push(field);
                full.push(&index);
                self.check(
                    name,
                    doc.at(&full),
                    &format!("`{field}` of {owner}"),
                    diagnostics,
                );
            }
        }
    }
}

/// What Karmada's webhook refuses in a placement (`ValidatePlacement`), and
/// what Karmada acts on that garrison does not.
fn placement(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
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
    overflow_affinities(policy, diagnostics);
    affinity_names(policy, diagnostics);
    spread_constraints(policy, diagnostics);
    selector_namespaces(policy, diagnostics);
}

/// `overflowAffinities`: refused where Karmada's webhook refuses them
/// (`ValidatePlacement`, `ValidateOverflowAffinities`); the scheduler acts
/// on the others.
fn overflow_affinities(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    let placement = &policy.spec.placement;
    let allowed = matches!(
        placement.division(),
        Division::DynamicWeighted | Division::Aggregated
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
        let message = if !allowed {
            "`overflowAffinities` can only be used with dynamic weight or aggregated scheduling"
        } else if term.affinity() == ClusterAffinity::default() {
            "`overflowAffinities` can only be used together with the affinity group's own cluster affinity"
        } else {
            continue;
        };
        diagnostics.push(
            Diagnostic::error(Code::InvalidPlacement, message)
                .at(at)
                .help("as Karmada's webhook requires: divide by `dynamicWeight` or `Aggregated`, and select clusters in the group itself"),
        );
    }
}

/// `schedulePriority` names a Kubernetes PriorityClass that Karmada reads
/// from its own API server when it builds each binding; without it Karmada
/// builds none (`BuildResourceBinding` fails and retries), so nothing the
/// policy claims would be delivered. In a render the repository is that API
/// server: the class must be one of its templates.
fn priority_class(inputs: &Inputs, policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    let Some(priority) = &policy.spec.schedule_priority else {
        return;
    };
    let name = &priority.priority_class_name;
    let found = inputs.templates.iter().any(|t| {
        t.key.kind == "PriorityClass"
            && t.key.api_version.starts_with("scheduling.k8s.io/")
            && &t.key.name == name
    });
    if !found {
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidPlacement,
                format!("PriorityClass `{name}` is not in the repository: Karmada builds no binding for what {} claims until it exists, so nothing would be delivered", policy.display()),
            )
            .at(policy.doc.at(&["spec", "schedulePriority", "priorityClassName"]))
            .help("add the PriorityClass (scheduling.k8s.io/v1) to the repository, fix the name, or remove `schedulePriority`"),
        );
    }
}

/// Affinity group names, as Karmada's CRD and webhook take them: 1 to 32
/// characters, each a label key (`IsQualifiedName`), unique among the
/// groups, and each overflow group's unique within its group and apart from
/// the group's own name.
fn affinity_names(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    let mut push = |path: Vec<String>, name: &str, fault: String| {
        let at: Vec<&str> = path.iter().map(String::as_str).collect();
        diagnostics.push(
            Diagnostic::error(Code::InvalidPlacement, format!("affinity name `{name}` {fault}"))
                .at(policy.doc.at(&at))
                .help("name each affinity group with a label key of 1 to 32 characters, unique in the policy"),
        );
    };
    let fault = |name: &str| {
        if name.is_empty() || name.len() > 32 {
            Some("must be 1 to 32 characters".to_string())
        } else {
            crate::model::meta::label_key_fault(name)
        }
    };
    let mut seen = BTreeSet::new();
    for (i, term) in policy.spec.placement.cluster_affinities.iter().enumerate() {
        let index = i.to_string();
        let path = |tail: &[&str]| -> Vec<String> {
            ["spec", "placement", "clusterAffinities", &index]
                .iter()
                .chain(tail)
                .map(|s| s.to_string())
                .collect()
        };
        let name = term.affinity_name.as_str();
        if let Some(why) = fault(name) {
            push(path(&["affinityName"]), name, why);
        } else if !seen.insert(name) {
            push(
                path(&["affinityName"]),
                name,
                "is used twice: each affinity group needs its own".into(),
            );
        }
        let mut overflow_seen = BTreeSet::from([name]);
        for (j, overflow) in term.overflow_affinities.iter().flatten().enumerate() {
            let at = path(&["overflowAffinities", &j.to_string(), "affinityName"]);
            let name = overflow.affinity_name.as_str();
            if let Some(why) = fault(name) {
                push(at, name, why);
            } else if !overflow_seen.insert(name) {
                push(at, name, "is used twice in this group: an overflow group's name must differ from the group's and from the other overflow groups'".into());
            }
        }
    }
}

/// Karmada's webhook rules for `spec.failover` (`ValidatePropagationSpec`,
/// `ValidateFailover`, after its mutation gave a graceful purge without a
/// grace period 600 seconds and the CRD a missing purge mode `Gracefully`):
/// an application failover needs `propagateDeps`, so the application's
/// dependencies move with it; a grace period belongs to a graceful purge
/// and is positive; a toleration is not negative; a preserved state's
/// alias is a label name. garrison never fails over (it sees no cluster
/// health), but a policy Karmada would refuse claims nothing there.
fn failover(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    use crate::model::policy::ApplicationPurgeMode;
    let Some(failover) = &policy.spec.failover else {
        return;
    };
    let mut refuse = |path: &[&str], message: String, help: &str| {
        let mut full = vec!["spec", "failover"];
        full.extend_from_slice(path);
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidPlacement,
                format!("{}: {message}", policy.display()),
            )
            .at(policy.doc.at(&full))
            .help(help.to_string()),
        );
    };
    let rules = |preserved: Option<&crate::model::policy::StatePreservation>| {
        preserved
            .into_iter()
            .flat_map(|p| p.rules.iter().enumerate())
            .filter_map(|(i, rule)| {
                crate::model::meta::label_key_fault(&rule.alias_label_name).map(|fault| {
                    (
                        i,
                        format!("`aliasLabelName` `{}` {fault}", rule.alias_label_name),
                    )
                })
            })
            .collect::<Vec<_>>()
    };
    if let Some(application) = &failover.application {
        if !policy.spec.propagate_deps {
            refuse(
                &["application"],
                "an application failover needs `propagateDeps: true`; Karmada's webhook refuses the policy without it".into(),
                "set `propagateDeps: true`, so the application's ConfigMaps and Secrets move with it",
            );
        }
        if application
            .decision_conditions
            .toleration_seconds
            .is_some_and(|t| t < 0)
        {
            refuse(
                &["application", "decisionConditions", "tolerationSeconds"],
                "`tolerationSeconds` must not be negative".into(),
                "give the seconds a cluster may misbehave before the application moves, 0 or more",
            );
        }
        let graceful = application
            .purge_mode
            .is_none_or(|mode| mode == ApplicationPurgeMode::Gracefully);
        match application.grace_period_seconds {
            Some(_) if !graceful => refuse(
                &["application", "gracePeriodSeconds"],
                "`gracePeriodSeconds` only applies to `purgeMode: Gracefully`".into(),
                "remove `gracePeriodSeconds`, or purge gracefully",
            ),
            Some(seconds) if seconds <= 0 => refuse(
                &["application", "gracePeriodSeconds"],
                "`gracePeriodSeconds` must be greater than 0".into(),
                "give the seconds the old copy may keep running, or leave it out for Karmada's 600",
            ),
            _ => {}
        }
    }
    let preserved = [
        (
            "application",
            failover
                .application
                .as_ref()
                .and_then(|a| a.state_preservation.as_ref()),
        ),
        (
            "cluster",
            failover
                .cluster
                .as_ref()
                .and_then(|c| c.state_preservation.as_ref()),
        ),
    ];
    for (side, preservation) in preserved {
        for (i, fault) in rules(preservation) {
            let index = i.to_string();
            refuse(
                &[side, "statePreservation", "rules", &index, "aliasLabelName"],
                fault,
                "an alias is a label name: letters, digits, `-`, `_` and `.`, with an optional DNS prefix and `/`",
            );
        }
    }
}

/// Karmada's webhook rules for spread constraints (`ValidateSpreadConstraint`,
/// after `SetDefaultSpreadConstraints` made a constraint naming neither a
/// field nor a label spread by cluster), and the ones Karmada v1.19 accepts
/// but does not spread by.
fn spread_constraints(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    let spreads = &policy.spec.placement.spread_constraints;
    let at = |i: usize| {
        policy
            .doc
            .at(&["spec", "placement", "spreadConstraints", &i.to_string()])
    };
    let mut fields = BTreeSet::new();
    for (i, spread) in spreads.iter().enumerate() {
        let fault = if spread.spread_by_field.is_some() && spread.spread_by_label.is_some() {
            Some(
                "a spread constraint takes `spreadByField` or `spreadByLabel`, not both"
                    .to_string(),
            )
        } else if spread
            .max_groups
            .is_some_and(|max| max > 0 && max < spread.min_groups.unwrap_or(0))
        {
            Some("`maxGroups` is lower than `minGroups`".to_string())
        } else {
            spread
                .spread_by_field
                .filter(|f| !fields.insert(*f))
                .map(|field| {
                    format!(
                        "there is already a spread constraint by `{}`; one per field is allowed",
                        field_name(field)
                    )
                })
        };
        if let Some(message) = fault {
            diagnostics.push(
                Diagnostic::error(Code::InvalidPlacement, message)
                    .at(at(i))
                    .help("as Karmada's webhook requires: one field or label per constraint, one constraint per field, and maxGroups (when set) at least minGroups"),
            );
        }
    }
    if !fields.is_empty() && !fields.contains(&SpreadField::Cluster) {
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
                Some(SpreadField::Zone | SpreadField::Provider)
            );
        if unenforced {
            diagnostics.push(
                Diagnostic::warning(Code::IgnoredField, "Karmada v1.19 spreads only by `cluster` and `region`: this constraint does not spread (alone it selects no cluster, as in Karmada); clusters without the field it names are still left out")
                    .at(at(i)),
            );
        }
    }
}

fn field_name(field: SpreadField) -> &'static str {
    match field {
        SpreadField::Cluster => "cluster",
        SpreadField::Region => "region",
        SpreadField::Zone => "zone",
        SpreadField::Provider => "provider",
    }
}

/// A PropagationPolicy selects templates of its own namespace only.
fn selector_namespaces(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    own_namespace(
        policy.namespace.as_deref(),
        &policy.spec.resource_selectors,
        &policy.doc,
        ("a PropagationPolicy", "a ClusterPropagationPolicy"),
        Code::InvalidPlacement,
        diagnostics,
    );
}

/// An OverridePolicy, too, selects templates of its own namespace only:
/// Karmada's webhook fills an empty selector namespace with the policy's
/// and refuses any other (`validateResourceSelectors`, from
/// `ValidateOverrideSpec`), so such a policy overrides nothing.
fn override_selector_namespaces(policy: &OverridePolicy, diagnostics: &mut Diagnostics) {
    own_namespace(
        policy.namespace.as_deref(),
        &policy.spec.resource_selectors,
        &policy.doc,
        ("an OverridePolicy", "a ClusterOverridePolicy"),
        Code::InvalidOverride,
        diagnostics,
    );
}

/// The resource selectors of a namespaced policy of `kinds.0`, in
/// `namespace`, written at `spec.resourceSelectors` of `doc`: each names
/// no namespace, or the policy's own; a cluster-scoped policy (`kinds.1`)
/// may name any. Refused with `code`.
fn own_namespace(
    namespace: Option<&str>,
    selectors: &[ResourceSelector],
    doc: &crate::model::inputs::Document,
    (kind, cluster_kind): (&str, &str),
    code: Code,
    diagnostics: &mut Diagnostics,
) {
    let Some(ns) = namespace else {
        return;
    };
    for (i, selector) in selectors.iter().enumerate() {
        if selector
            .namespace
            .as_deref()
            .is_some_and(|s| !s.is_empty() && s != ns)
        {
            diagnostics.push(
                Diagnostic::error(
                    code,
                    format!("{kind} in `{ns}` cannot select templates in another namespace"),
                )
                .at(doc.at(&["spec", "resourceSelectors", &i.to_string(), "namespace"]))
                .help(format!("remove the namespace, or use {cluster_kind}")),
            );
        }
    }
}

/// The path of a field under `spec.placement`.
fn placement_path(tail: &[&str]) -> Vec<String> {
    ["spec", "placement"]
        .iter()
        .chain(tail)
        .map(|s| s.to_string())
        .collect()
}

/// Every cluster affinity of a policy, with the path it is written at:
/// `clusterAffinity`, each of `clusterAffinities` and their overflow groups,
/// each static weight rule.
fn affinities(policy: &PropagationPolicy) -> Vec<(Vec<String>, ClusterAffinity)> {
    let placement = &policy.spec.placement;
    let mut affinities = validated_affinities(policy);
    let weights = placement
        .replica_scheduling
        .as_ref()
        .and_then(|r| r.weight_preference.as_ref());
    for (i, rule) in weights
        .iter()
        .flat_map(|w| w.static_weight_list.iter())
        .enumerate()
    {
        let index = i.to_string();
        let at = placement_path(&[
            "replicaScheduling",
            "weightPreference",
            "staticWeightList",
            &index,
            "targetCluster",
        ]);
        affinities.push((at, rule.target_cluster.clone()));
    }
    affinities
}

/// A policy that preempts (`preemption: Always`) names every resource it
/// selects: Karmada's policy webhook refuses a selector without a name
/// there (validateResourceSelectorsIfPreemptionEnabled), as it could take
/// templates from every other policy, so such a policy claims nothing.
fn preemption(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    if policy.spec.preemption != Some(crate::model::policy::Preemption::Always) {
        return;
    }
    for (i, selector) in policy.spec.resource_selectors.iter().enumerate() {
        if selector.name.as_deref().is_some_and(|n| !n.is_empty()) {
            continue;
        }
        let index = i.to_string();
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidPlacement,
                format!(
                    "{}: with `preemption: Always` every resource selector names its resource; Karmada's webhook refuses a selector without a name",
                    policy.display()
                ),
            )
            .at(policy.doc.at(&["spec", "resourceSelectors", &index]))
            .help("add the `name` of the resource to take over, or remove `preemption: Always`".to_string()),
        );
    }
}

/// A workload affinity groups by label keys: Karmada's webhook checks them
/// whether or not its WorkloadAffinity gate is on (`ValidateWorkloadAffinity`),
/// so a key that is no label key, or one key for both the affinity and the
/// anti-affinity, is refused even though the render ignores the field.
fn workload_affinity(policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    let Some(affinity) = policy.spec.placement.workload_affinity.as_ref() else {
        return;
    };
    let refuse = |field: &str, message: String, help: &str, diagnostics: &mut Diagnostics| {
        let mut path = vec!["spec", "placement", "workloadAffinity"];
        if !field.is_empty() {
            path.extend([field, "groupByLabelKey"]);
        }
        diagnostics.push(
            Diagnostic::error(Code::InvalidPlacement, message)
                .at(policy.doc.at(&path))
                .help(help.to_string()),
        );
    };
    for (field, term) in [
        ("affinity", &affinity.affinity),
        ("antiAffinity", &affinity.anti_affinity),
    ] {
        let Some(term) = term else { continue };
        if let Some(fault) = crate::model::meta::label_key_fault(&term.group_by_label_key) {
            refuse(
                field,
                format!(
                    "{}: the workload {field} groups by `{}`, which is no label key: it {fault}; Karmada's webhook refuses the policy",
                    policy.display(),
                    term.group_by_label_key
                ),
                "write a label key, such as `app`",
                diagnostics,
            );
        }
    }
    if let (Some(affinity), Some(anti)) = (&affinity.affinity, &affinity.anti_affinity) {
        if affinity.group_by_label_key == anti.group_by_label_key {
            refuse(
                "",
                format!(
                    "{}: the workload affinity and anti-affinity both group by `{}`; Karmada's webhook refuses the policy",
                    policy.display(),
                    affinity.group_by_label_key
                ),
                "group the two by different label keys, or drop one",
                diagnostics,
            );
        }
    }
}

/// Clusters a policy suspends dispatching to must be in the fleet, and
/// are not named beside a suspension of every cluster: Karmada's policy
/// webhook refuses `dispatching: true` with `dispatchingOnClusters`
/// naming clusters (validateSuspension), so such a policy claims nothing
/// there.
fn suspension(fleet: &Fleet<'_>, policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
    let Some(suspension) = policy.spec.suspension.as_ref() else {
        return;
    };
    let Some(on) = suspension.dispatching_on_clusters.as_ref() else {
        return;
    };
    if suspension.dispatching == Some(true) && !on.cluster_names.is_empty() {
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidPlacement,
                format!(
                    "{}: `dispatching: true` suspends every cluster, so `dispatchingOnClusters` cannot name clusters too; Karmada's webhook refuses the policy",
                    policy.display()
                ),
            )
            .at(policy.doc.at(&["spec", "suspension", "dispatchingOnClusters"]))
            .help("keep `dispatching: true` to hold every cluster, or remove it and list the clusters to hold".to_string()),
        );
    }
    for (i, name) in on.cluster_names.iter().enumerate() {
        let index = i.to_string();
        let at = policy.doc.at(&[
            "spec",
            "suspension",
            "dispatchingOnClusters",
            "clusterNames",
            &index,
        ]);
        let what = format!("the suspension of {}", policy.display());
        fleet.check(name, at, &what, diagnostics);
    }
}

/// The override policies a policy depends on must exist.
fn dependent_overrides(inputs: &Inputs, policy: &PropagationPolicy, diagnostics: &mut Diagnostics) {
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

/// A cluster an override names that the fleet lacks (a typo) would leave
/// the override silently unapplied.
fn override_targets(fleet: &Fleet<'_>, policy: &OverridePolicy, diagnostics: &mut Diagnostics) {
    for (rule, target, _) in policy.spec.rules() {
        let Some(target) = target else { continue };
        // `…/overriders` → `…/targetCluster`.
        let pointer = policy.spec.overriders_pointer(rule);
        let mut at: Vec<&str> = std::iter::once("spec")
            .chain(pointer.split('/').filter(|s| !s.is_empty()))
            .collect();
        at.pop();
        at.push("targetCluster");
        fleet.check_affinity(target, &at, &policy.doc, &policy.display(), diagnostics);
        field_operators(target, &at, &policy.doc, diagnostics);
    }
}

/// The affinities of a placement that Karmada's webhook validates
/// (`ValidateClusterAffinity`): `clusterAffinity`, each of
/// `clusterAffinities` and their overflow groups. Static weight targets are
/// not validated by it.
fn validated_affinities(policy: &PropagationPolicy) -> Vec<(Vec<String>, ClusterAffinity)> {
    let placement = &policy.spec.placement;
    let mut affinities = Vec::new();
    if let Some(affinity) = &placement.cluster_affinity {
        affinities.push((placement_path(&["clusterAffinity"]), affinity.clone()));
    }
    for (i, term) in placement.cluster_affinities.iter().enumerate() {
        let index = i.to_string();
        affinities.push((
            placement_path(&["clusterAffinities", &index]),
            term.affinity(),
        ));
        for (j, overflow) in term.overflow_affinities.iter().flatten().enumerate() {
            affinities.push((
                placement_path(&[
                    "clusterAffinities",
                    &index,
                    "overflowAffinities",
                    &j.to_string(),
                ]),
                overflow.affinity(),
            ));
        }
    }
    affinities
}

/// Karmada's webhook takes only `In` and `NotIn` in a cluster field
/// selector (`ValidatePolicyFieldSelector`).
fn field_operators(
    affinity: &ClusterAffinity,
    path: &[&str],
    doc: &crate::model::inputs::Document,
    diagnostics: &mut Diagnostics,
) {
    let Some(selector) = &affinity.field_selector else {
        return;
    };
    for (i, requirement) in selector.match_expressions.iter().enumerate() {
        if matches!(
            requirement.operator,
            FieldOperator::In | FieldOperator::NotIn
        ) {
            continue;
        }
        let index = i.to_string();
        let mut at = path.to_vec();
        at.extend(["fieldSelector", "matchExpressions", &index, "operator"]);
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidPlacement,
                format!(
                    "unsupported operator `{:?}` in a cluster field selector, must be In or NotIn",
                    requirement.operator
                ),
            )
            .at(doc.at(&at))
            .help("use `In` or `NotIn` with the values to match, as Karmada's webhook requires"),
        );
    }
}

/// What Karmada's admission webhook refuses in an override policy.
fn override_faults(policy: &OverridePolicy, diagnostics: &mut Diagnostics) {
    for (pointer, message) in policy.spec.faults() {
        let at: Vec<&str> = std::iter::once("spec")
            .chain(pointer.split('/').filter(|s| !s.is_empty()))
            .collect();
        diagnostics.push(
            Diagnostic::error(Code::InvalidOverride, format!("{}: {message}", policy.display()))
                .at(policy.doc.at(&at))
                .help("change the policy as the message says: Karmada's admission webhook refuses it as it is"),
        );
    }
}

/// A kind Karmada interprets with a customization built into it (Kruise,
/// Argo, Flux, …; [`interpret::thirdparty`]) renders differently without
/// that customization where the render depends on it: Karmada divides the
/// replicas of such a workload and finds its dependencies, garrison would
/// copy it whole and find none. Refused unless the repository declares the
/// customization, which both then run.
pub(super) fn built_in_interpreters(
    inputs: &Inputs,
    apps: &[super::App],
    templates: &BTreeMap<&ObjectKey, &Template>,
    interpreter: &interpret::Interpreter,
    diagnostics: &mut Diagnostics,
) {
    for app in apps {
        let (api_version, kind) = (app.key.api_version.as_str(), app.key.kind.as_str());
        if !interpret::thirdparty::built_in(api_version, kind) {
            continue;
        }
        let Some(policy) = super::policy_of(inputs, app) else {
            continue;
        };
        let Some(template) = templates.get(&app.key) else {
            continue;
        };
        let divided = !matches!(policy.spec.placement.division(), Division::Duplicated);
        let follows = policy.spec.propagate_deps || policy.spec.association;
        let missing = [
            (Rule::ReplicaResource, divided, "divides its replicas"),
            (
                Rule::DependencyInterpretation,
                follows,
                "propagates its dependencies",
            ),
        ]
        .into_iter()
        .find(|(rule, used, _)| {
            *used
                && interpret::thirdparty::karmada_defines(api_version, kind, *rule)
                && !interpreter.defines(&app.key, *rule)
        });
        if let Some((rule, _, what)) = missing {
            diagnostics.push(
                Diagnostic::error(
                    Code::MissingInterpreter,
                    format!(
                        "Karmada interprets `{kind}` ({api_version}) with a `{}` customization built into it, which this render needs because {} {what}; the repository declares no such customization, so garrison's render would differ from Karmada's",
                        rule.field(),
                        policy.display()
                    ),
                )
                .at(template.origin)
                .help(format!(
                    "declare Karmada's customization for the kind as a ResourceInterpreterCustomization in the repository (published at {}), or write your own",
                    interpret::thirdparty::source(api_version, kind)
                )),
            );
        }
    }
}

/// A template with `spec.replicas` that a policy divides, of a kind no
/// resource interpreter reads replicas from (a custom resource without a
/// `replicaResource` customization, a ReplicationController): Karmada's
/// interpreter finds no replicas (its native `GetReplicas` knows only
/// Deployment, ReplicaSet, StatefulSet, Job and Pod), so the binding is no
/// workload, its binding controller revises nothing (`ensureWork` calls
/// `ReviseReplica` only when `bindingSpec.IsWorkload()`), and every
/// selected cluster gets the template unchanged, all its replicas each.
/// garrison renders the same, but never silently: one warning per
/// template, naming what Karmada does and the fix.
pub(super) fn undivided_replicas(
    inputs: &Inputs,
    apps: &[super::App],
    templates: &BTreeMap<&ObjectKey, &Template>,
    interpreter: &interpret::Interpreter,
    diagnostics: &mut Diagnostics,
) {
    for app in apps {
        let (api_version, kind) = (app.key.api_version.as_str(), app.key.kind.as_str());
        if app.binding.workload
            || !matches!(app.source, super::Source::Policy { .. })
            || interpreter.defines(&app.key, Rule::ReplicaResource)
            || interpret::thirdparty::karmada_defines(api_version, kind, Rule::ReplicaResource)
        {
            continue;
        }
        let Some(policy) = super::policy_of(inputs, app) else {
            continue;
        };
        if matches!(policy.spec.placement.division(), Division::Duplicated) {
            continue;
        }
        let Some(template) = templates.get(&app.key) else {
            continue;
        };
        let Some(replicas) = template
            .value
            .pointer("/spec/replicas")
            .and_then(serde_json::Value::as_u64)
            .filter(|r| *r > 0)
        else {
            continue;
        };
        diagnostics.push(
            Diagnostic::warning(
                Code::ReplicasNotDivided,
                format!(
                    "`{}` has `spec.replicas: {replicas}` and {} divides replicas, but no resource interpreter reads the replicas of `{kind}` ({api_version}): Karmada's scheduler then divides nothing, and every selected cluster gets all {replicas}; so does this render",
                    app.key,
                    policy.display()
                ),
            )
            .at(template.origin)
            .help(format!(
                "declare a ResourceInterpreterCustomization for `{kind}` with a `replicaResource` script (GetReplicas) and a `replicaRevision` script (ReviseReplica), as Karmada's own for CloneSet does ({}); both Karmada and garrison then divide it. If every cluster should run all {replicas}, make the placement Duplicated",
                interpret::thirdparty::source("apps.kruise.io/v1alpha1", "CloneSet")
            )),
        );
    }
}

/// A policy whose selectors match no template is almost always a typo.
pub(super) fn unused_policies(inputs: &Inputs, diagnostics: &mut Diagnostics) {
    let help = "check apiVersion, kind, namespace, name and labels of its resource selectors";
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
                .help(help),
            );
        }
    }
    // An override policy that selects nothing overrides nothing: most often
    // a misspelt kind or name in its selectors. (No selectors: every template.)
    for policy in &inputs.override_policies {
        let reference = OverridePolicyRef::from(policy);
        let matches_some = inputs.templates.iter().any(|t| {
            !overrides::applicable(std::slice::from_ref(&reference), &t.view()).is_empty()
        });
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
                .help(help),
            );
        }
    }
}
