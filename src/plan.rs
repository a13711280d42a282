//! The plan: every decision of a render, made from the inputs and the
//! previous render, with no IO.
//!
//! For each template: the policy that claims it (or a pinned binding), the
//! held clusters, the binding, the fort; then, per (application, cluster),
//! the object after replica revision, overrides and Karmada's bookkeeping.
//! `render`, `diff`, `check` and `explain` all read this one value.

use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::emit::{self, Format};
use crate::fort::{self, Fort, FortError, FORT_CLUSTER_ANNOTATION, FORT_ENABLED, FORT_LABEL};
use crate::interpret;
use crate::model::cluster::Cluster;
use crate::model::inputs::{Inputs, PropagationPolicy, Template};
use crate::model::meta::ObjectKey;
use crate::model::policy::{Placement, FORT_ANNOTATION};
use crate::model::previous::PreviousRender;
use crate::model::selector::Labels;
use crate::overrides::{self, OverridePolicyRef};
use crate::pause;
use crate::reuse;
use crate::schedule::{self, policy_match, Assignment, Binding, Decision};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Which policy propagated an application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyRef {
    pub name: String,
    /// `None` for a ClusterPropagationPolicy.
    pub namespace: Option<String>,
}

/// How an application came to be propagated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Policy {
        policy: PolicyRef,
        passed_over: Vec<policy_match::PassedOver>,
    },
    /// A ResourceBinding in the source pins it.
    Pinned { policy: Option<PolicyRef> },
    /// Another application's `propagateDeps` brings it.
    Dependency { of: Vec<ObjectKey> },
    /// A Namespace with no policy goes to every cluster, as Karmada's namespace controller does.
    NamespaceAutoPropagation,
}

/// One application: a template and where it goes.
#[derive(Clone, Debug, PartialEq)]
pub struct App {
    pub key: ObjectKey,
    pub source: Source,
    pub binding: Binding,
    pub fort: Option<Fort>,
    pub placement: Option<Placement>,
    pub placement_json: Option<String>,
    /// Clusters held for this application (paused or suspended).
    pub held: BTreeSet<String>,
    /// Overrides applied, per cluster, in order.
    pub overrides: BTreeMap<String, overrides::Applied>,
    /// The render digest ([`crate::reuse`]); `None` when nothing was rendered.
    pub digest: Option<String>,
}

/// One object for one cluster, as the file that holds it. Objects are
/// serialised as soon as they are rendered, so a render of hundreds of
/// thousands of objects never holds them all as JSON trees at once.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    pub key: ObjectKey,
    /// Path in the cluster directory.
    pub path: String,
    /// `None`: the previous render's file, kept in place without being read.
    pub bytes: Option<Vec<u8>>,
}

/// A policy's `conflictResolution` and `preserveResourcesOnDeletion`, which
/// Karmada copies onto each Work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkOptions {
    pub overwrite: bool,
    pub preserve_on_deletion: bool,
}

/// What one cluster receives.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterPlan {
    pub name: String,
    pub paused: bool,
    /// Objects rendered now, sorted by key.
    pub objects: Vec<Rendered>,
    /// Applications whose files on this cluster are frozen (held), by key.
    pub frozen: Vec<ObjectKey>,
    /// What the held applications would look like now without the hold.
    pub shadow: Vec<Rendered>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Sorted by key.
    pub apps: Vec<App>,
    /// Every cluster of the fleet, sorted by name.
    pub clusters: Vec<ClusterPlan>,
    /// Templates no policy or binding claims.
    pub unclaimed: Vec<ObjectKey>,
    pub warnings: Diagnostics,
}

impl Plan {
    pub fn app(&self, key: &ObjectKey) -> Option<&App> {
        self.apps
            .binary_search_by(|a| a.key.cmp(key))
            .ok()
            .and_then(|i| self.apps.get(i))
    }
}

const RESERVED_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];

/// Make every decision of a render. Errors (and warnings) come back as diagnostics.
pub fn plan(inputs: &Inputs, previous: &PreviousRender) -> Result<Plan, Diagnostics> {
    plan_with(inputs, previous, &Options::default())
}

/// How a plan renders: which clusters, in which format, and whether files
/// of the previous render may be kept ([`crate::reuse`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub scope: Scope,
    pub format: Format,
    pub reuse: bool,
    /// Keep what every override did, per application and cluster
    /// ([`App::overrides`]), for `explain`. A render does not need it, and
    /// at hundreds of thousands of objects it is hundreds of megabytes.
    pub record_overrides: bool,
}

/// Which clusters a plan renders objects for. Scheduling always sees the
/// whole fleet; a shard only renders its own clusters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    #[default]
    All,
    /// Shard `index` (1-based) of `count`: the clusters whose position in
    /// name order is `index - 1` modulo `count`.
    Shard { index: usize, count: usize },
    /// Schedule only; render no cluster (for summaries of merged shards).
    ScheduleOnly,
}

impl Scope {
    /// Whether the cluster at `position` of the fleet (in name order) is
    /// rendered in this scope.
    fn contains_at(&self, position: usize) -> bool {
        match self {
            Scope::All => true,
            Scope::ScheduleOnly => false,
            Scope::Shard { index, count } => {
                *count > 0 && position % count == index.saturating_sub(1)
            }
        }
    }
}

/// [`plan`] with explicit [`Options`].
pub fn plan_with(
    inputs: &Inputs,
    previous: &PreviousRender,
    options: &Options,
) -> Result<Plan, Diagnostics> {
    let scope = &options.scope;
    let mut diagnostics = Diagnostics::default();
    validate_references(inputs, &mut diagnostics);
    overrides::check::against_schemas(inputs, &mut diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let interpreter = interpret::Interpreter::new(&inputs.customizations, &mut diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let fleet = &inputs.clusters;
    let paused = pause::paused_clusters(fleet);
    let templates_by_key: BTreeMap<&ObjectKey, &Template> =
        inputs.templates.iter().map(|t| (&t.key, t)).collect();
    let pinned = pinned_bindings(inputs, &templates_by_key, &mut diagnostics);

    // Which policy (or binding) claims each template.
    let mut apps: Vec<App> = Vec::new();
    let mut unclaimed = Vec::new();
    for template in &inputs.templates {
        if let Some(why) = policy_match::skip_reason(template) {
            diagnostics.push(
                Diagnostic::warning(
                    Code::ReservedNamespace,
                    format!("`{}` is not rendered: {why}", template.key),
                )
                .at(template.origin)
                .help("move it to another namespace (or drop the label), or remove it from the repository"),
            );
            continue;
        }
        let choice = policy_match::choose_policy(template, &inputs.propagation_policies);
        let policy = choice
            .as_ref()
            .map(|c| &inputs.propagation_policies[c.policy]);
        let previous_binding = previous.bindings.get(&template.key);
        let held = pause::held_for(policy.map(|p| &p.spec), fleet, &paused);
        let replicas = match interpreter.replicas(template) {
            Ok(replicas) => replicas,
            Err(error) => {
                diagnostics.push(error.diagnostic(&template.key, None));
                continue;
            }
        };
        let requirements = replicas.as_ref().and_then(|r| r.requirements.clone());

        // Karmada's namespace controller sends every Namespace to every
        // cluster, whatever policy also selects it, unless it opts out.
        let auto_namespace = template.key.kind == "Namespace"
            && template.key.api_version == "v1"
            && template
                .labels
                .get("namespace.karmada.io/skip-auto-propagation")
                .is_none_or(|v| v != "true")
            && !RESERVED_NAMESPACES.contains(&template.key.name.as_str())
            && !policy_match::namespace_is_reserved(&template.key.name);
        let (source, binding, placement) = if let Some((_, pin)) = pinned.get(&template.key) {
            let binding = pinned_binding(
                pin,
                replicas.as_ref().map(|r| r.desired),
                &held,
                previous_binding,
            );
            (
                Source::Pinned {
                    policy: policy.map(policy_ref),
                },
                binding,
                policy.map(|p| p.spec.placement.clone()),
            )
        } else if auto_namespace {
            let binding = everywhere(fleet, &held, previous_binding);
            (Source::NamespaceAutoPropagation, binding, None)
        } else if let (Some(choice), Some(policy)) = (&choice, policy) {
            let placement_json = placement_json(&policy.spec.placement);
            let request = schedule::Request {
                api_version: &template.key.api_version,
                kind: &template.key.kind,
                placement: &policy.spec.placement,
                placement_json: &placement_json,
                replicas: replicas.as_ref().map(|r| r.desired),
                requirements: requirements.as_ref(),
                previous: previous_binding,
                held: &held,
                paused: &paused,
            };
            let binding = schedule::schedule(&request, fleet);
            if let Decision::Unschedulable(why) | Decision::KeptAfterFailure(why) =
                &binding.decision
            {
                diagnostics.push(
                    Diagnostic::warning(Code::Unschedulable, format!("`{}` is not scheduled: {why}", template.key))
                        .at(policy.doc.at(&["spec", "placement"]))
                        .help("check the placement's affinity, tolerations and spread constraints against the fleet"),
                );
            }
            let source = Source::Policy {
                policy: policy_ref(policy),
                passed_over: choice.passed_over.clone(),
            };
            (source, binding, Some(policy.spec.placement.clone()))
        } else {
            unclaimed.push(template.key.clone());
            continue;
        };

        let placement_json = placement.as_ref().map(placement_json);
        let mut app = App {
            key: template.key.clone(),
            source,
            binding,
            fort: None,
            placement,
            placement_json,
            held,
            overrides: BTreeMap::new(),
            digest: None,
        };
        if policy.is_some_and(|p| {
            p.annotations
                .get(FORT_ANNOTATION)
                .is_some_and(|v| v == FORT_ENABLED)
        }) {
            let pin = template
                .annotations
                .get(FORT_CLUSTER_ANNOTATION)
                .map(String::as_str);
            match fort::choose_fort(&app.binding, pin, previous_binding.and_then(|p| p.fort.as_deref())) {
                Ok(f) => app.fort = f,
                Err(FortError::PinNotCandidate { pin, candidates }) => diagnostics.push(
                    Diagnostic::error(
                        Code::FortPinNotCandidate,
                        format!("`{}` pins its fort to cluster `{pin}`, which is not a candidate", template.key),
                    )
                    .at(template.fort_pin_origin.unwrap_or(template.origin))
                    .help(if candidates.is_empty() {
                        "the application has no unpaused cluster in its binding; remove the pin or unpause a cluster".to_string()
                    } else {
                        format!("pin one of the binding's unpaused clusters: {}", quoted(&candidates))
                    }),
                ),
            }
        } else if let (Some(policy), Some(pin_at)) = (policy, template.fort_pin_origin) {
            diagnostics.push(
                Diagnostic::warning(
                    Code::IgnoredField,
                    format!(
                        "`{}` pins its fort, but {} does not enable fort placement; the pin has no effect",
                        template.key,
                        policy.display()
                    ),
                )
                .at(pin_at)
                .help(format!(
                    "annotate the policy with `{FORT_ANNOTATION}: {FORT_ENABLED}`, or remove the pin"
                )),
            );
        }
        apps.push(app);
    }
    warn_unused_policies(inputs, &mut diagnostics);
    propagate_dependencies(
        inputs,
        &interpreter,
        &mut apps,
        &templates_by_key,
        fleet,
        &paused,
        previous,
        &mut diagnostics,
    );
    unclaimed.retain(|key| !apps.iter().any(|a| &a.key == key));
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    apps.sort_by(|a, b| a.key.cmp(&b.key));

    // Only the clusters in scope are rendered (a shard renders its share).
    let in_scope: Vec<Cluster> = fleet
        .iter()
        .enumerate()
        .filter(|(position, _)| scope.contains_at(*position))
        .map(|(_, c)| c.clone())
        .collect();
    let context = RenderContext {
        inputs,
        interpreter: &interpreter,
        templates: &templates_by_key,
        previous,
        options,
    };
    let clusters = render_clusters(&context, &mut apps, &in_scope, &paused, &mut diagnostics);
    inputs.config.relax(
        &mut diagnostics,
        crate::load::config::WARNING_CHECKS,
        |file| inputs.sources.path(file),
    );
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(Plan {
        apps,
        clusters,
        unclaimed,
        warnings: diagnostics,
    })
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn policy_ref(policy: &PropagationPolicy) -> PolicyRef {
    PolicyRef {
        name: policy.name.clone(),
        namespace: policy.namespace.clone(),
    }
}

/// Canonical JSON of a placement, as Karmada's applied-placement annotation holds it.
pub fn placement_json(placement: &Placement) -> String {
    serde_json::to_string(placement).unwrap_or_default()
}

/// A non-workload binding onto every unheld cluster, plus held ones that had it.
fn everywhere(
    fleet: &[Cluster],
    held: &BTreeSet<String>,
    previous: Option<&crate::model::previous::PreviousBinding>,
) -> Binding {
    let had = |c: &str| previous.is_some_and(|p| p.clusters.iter().any(|(n, _)| n == c));
    let would_be: Vec<Assignment> = fleet
        .iter()
        .filter(|c| held.contains(&c.name))
        .map(|c| Assignment {
            cluster: c.name.clone(),
            replicas: 0,
            held: false,
        })
        .collect();
    Binding {
        clusters: fleet
            .iter()
            .filter(|c| !held.contains(&c.name) || had(&c.name))
            .map(|c| Assignment {
                cluster: c.name.clone(),
                replicas: 0,
                held: held.contains(&c.name),
            })
            .collect(),
        desired: 0,
        workload: false,
        revise: false,
        affinity_name: None,
        decision: Decision::Scheduled("Namespaces go to every cluster".into()),
        static_weights: None,
        notes: Vec::new(),
        would_be: (!would_be.is_empty()).then_some(would_be),
        withheld: BTreeSet::new(),
        remembered: false,
    }
}

fn pinned_binding(
    pin: &crate::model::binding::BindingDoc,
    desired: Option<u64>,
    held: &BTreeSet<String>,
    previous: Option<&crate::model::previous::PreviousBinding>,
) -> Binding {
    let revise = pin.spec.clusters.iter().any(|c| c.replicas.is_some()) && desired.is_some();
    let previous_replicas = |name: &str| -> Option<u64> {
        previous.and_then(|p| p.clusters.iter().find(|(c, _)| c == name).map(|(_, r)| *r))
    };
    let mut clusters = Vec::new();
    let mut would_be = Vec::new();
    for target in &pin.spec.clusters {
        let is_held = held.contains(&target.name);
        let pinned = target
            .replicas
            .map_or(desired.unwrap_or(0), |r| u64::try_from(r).unwrap_or(0));
        if is_held {
            would_be.push(Assignment {
                cluster: target.name.clone(),
                replicas: pinned,
                held: false,
            });
        }
        // A held cluster keeps what it had, and gets nothing it did not have.
        let replicas = match (is_held, previous_replicas(&target.name)) {
            (true, Some(kept)) => kept,
            (true, None) => continue,
            (false, _) => pinned,
        };
        clusters.push(Assignment {
            cluster: target.name.clone(),
            replicas,
            held: is_held,
        });
    }
    Binding {
        desired: if revise {
            clusters.iter().map(|c| c.replicas).sum()
        } else {
            desired.unwrap_or(0)
        },
        clusters,
        workload: desired.is_some(),
        revise,
        affinity_name: None,
        decision: Decision::Pinned,
        static_weights: None,
        notes: Vec::new(),
        would_be: (!would_be.is_empty()).then_some(would_be),
        withheld: BTreeSet::new(),
        remembered: false,
    }
}

/// Pinned bindings by template key, with unknown-cluster and missing-template checks.
fn pinned_bindings<'a>(
    inputs: &'a Inputs,
    templates: &BTreeMap<&ObjectKey, &Template>,
    diagnostics: &mut Diagnostics,
) -> BTreeMap<ObjectKey, (Origin, &'a crate::model::binding::BindingDoc)> {
    let mut result = BTreeMap::new();
    for pinned in &inputs.bindings {
        let resource = &pinned.binding.spec.resource;
        let key = ObjectKey {
            api_version: resource.api_version.clone(),
            kind: resource.kind.clone(),
            namespace: resource.namespace.clone().filter(|n| !n.is_empty()),
            name: resource.name.clone(),
        };
        if !templates.contains_key(&key) {
            diagnostics.push(
                Diagnostic::error(
                    Code::BindingWithoutTemplate,
                    format!("this binding pins `{key}`, which is not in the source"),
                )
                .at(pinned.doc.at(&["spec", "resource"]))
                .help("remove the binding, or add the template"),
            );
            continue;
        }
        result.insert(key, (pinned.doc.origin(), &pinned.binding));
    }
    result
}

/// Faults in cross-references that Karmada's webhooks or controllers would reject.
fn validate_references(inputs: &Inputs, diagnostics: &mut Diagnostics) {
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
fn warn_unused_policies(inputs: &Inputs, diagnostics: &mut Diagnostics) {
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

/// `propagateDeps`: the ConfigMaps, Secrets, ServiceAccounts and PVCs a
/// workload references follow it to the same clusters (union with any
/// schedule of their own, their own clusters first).
#[allow(clippy::too_many_arguments)]
fn propagate_dependencies(
    inputs: &Inputs,
    interpreter: &interpret::Interpreter,
    apps: &mut Vec<App>,
    templates: &BTreeMap<&ObjectKey, &Template>,
    fleet: &[Cluster],
    paused: &BTreeSet<String>,
    previous: &PreviousRender,
    diagnostics: &mut Diagnostics,
) {
    let mut required: BTreeMap<ObjectKey, Required> = BTreeMap::new();
    for app in apps.iter() {
        let propagate = match &app.source {
            Source::Policy { policy, .. }
            | Source::Pinned {
                policy: Some(policy),
            } => inputs
                .propagation_policies
                .iter()
                .find(|p| p.name == policy.name && p.namespace == policy.namespace)
                .is_some_and(|p| p.spec.propagate_deps || p.spec.association),
            _ => false,
        };
        if !propagate {
            continue;
        }
        let Some(template) = templates.get(&app.key) else {
            continue;
        };
        let dependencies = match interpreter.dependencies(template, &inputs.templates) {
            Ok(dependencies) => dependencies,
            Err(error) => {
                diagnostics.push(error.diagnostic(&app.key, None));
                continue;
            }
        };
        for key in dependencies {
            if key == app.key || !templates.contains_key(&key) {
                continue;
            }
            let entry = required.entry(key).or_default();
            entry
                .clusters
                .extend(app.binding.clusters.iter().map(|a| a.cluster.clone()));
            entry.without_holds.extend(
                app.binding
                    .would_be
                    .iter()
                    .flatten()
                    .map(|a| a.cluster.clone()),
            );
            entry.of.push(app.key.clone());
        }
    }
    for (
        key,
        Required {
            clusters,
            without_holds,
            of,
        },
    ) in required
    {
        let held = pause::held_for(None, fleet, paused);
        // What its held clusters would get without the holds: the object,
        // wherever a workload that references it is or would be.
        let would_be = |held: &BTreeSet<String>| -> Vec<Assignment> {
            clusters
                .union(&without_holds)
                .filter(|c| held.contains(*c))
                .map(|c| Assignment {
                    cluster: c.clone(),
                    replicas: 0,
                    held: false,
                })
                .collect()
        };
        if let Some(existing) = apps.iter_mut().find(|a| a.key == key) {
            for extra in would_be(&existing.held) {
                let shadow = existing.binding.would_be.get_or_insert_with(Vec::new);
                if !shadow.iter().any(|a| a.cluster == extra.cluster) {
                    shadow.push(extra);
                }
            }
            for cluster in clusters {
                if !existing
                    .binding
                    .clusters
                    .iter()
                    .any(|a| a.cluster == cluster)
                {
                    let is_held = existing.held.contains(&cluster);
                    existing.binding.clusters.push(Assignment {
                        cluster,
                        replicas: 0,
                        held: is_held,
                    });
                }
            }
            continue;
        }
        let had = |c: &str| {
            previous
                .bindings
                .get(&key)
                .is_some_and(|p| p.clusters.iter().any(|(n, _)| n == c))
        };
        let would_be = would_be(&held);
        let assignments = clusters
            .into_iter()
            .filter(|c| !held.contains(c) || had(c))
            .map(|c| Assignment {
                held: held.contains(&c),
                cluster: c,
                replicas: 0,
            })
            .collect();
        apps.push(App {
            key,
            source: Source::Dependency { of },
            binding: Binding {
                clusters: assignments,
                desired: 0,
                workload: false,
                revise: false,
                affinity_name: None,
                decision: Decision::Scheduled(
                    "follows the workloads that reference it (propagateDeps)".into(),
                ),
                static_weights: None,
                notes: Vec::new(),
                would_be: (!would_be.is_empty()).then_some(would_be),
                withheld: BTreeSet::new(),
                remembered: false,
            },
            fort: None,
            placement: None,
            placement_json: None,
            held,
            overrides: BTreeMap::new(),
            digest: None,
        });
    }
}

/// What one dependency needs, from the workloads that reference it.
#[derive(Default)]
struct Required {
    /// The clusters the workloads are on.
    clusters: BTreeSet<String>,
    /// The held clusters the workloads would be on without their holds.
    without_holds: BTreeSet<String>,
    /// The workloads.
    of: Vec<ObjectKey>,
}

/// The labels a cluster shows while `app` is rendered for it: its own, plus
/// garrison's per-application facts. Add a fact here and every override rule
/// and hook can select on it.
pub fn cluster_labels(cluster: &Cluster, app: &App) -> Labels {
    let mut labels = cluster.labels.clone();
    if let Some(fort) = &app.fort {
        labels.insert(
            FORT_LABEL.to_string(),
            (fort.cluster == cluster.name).to_string(),
        );
    }
    labels
}

/// What rendering reads besides the applications it renders.
struct RenderContext<'a> {
    inputs: &'a Inputs,
    interpreter: &'a interpret::Interpreter,
    templates: &'a BTreeMap<&'a ObjectKey, &'a Template>,
    previous: &'a PreviousRender,
    options: &'a Options,
}

/// One object to produce: application (by index), cluster, replicas, and
/// whether it is a shadow job (what a held cluster would receive, rendered
/// only to count what the hold keeps back).
struct Job<'a> {
    app: usize,
    template: &'a Template,
    cluster: &'a Cluster,
    replicas: u64,
    shadow: bool,
}

fn render_clusters(
    context: &RenderContext<'_>,
    apps: &mut [App],
    fleet: &[Cluster],
    paused: &BTreeSet<String>,
    diagnostics: &mut Diagnostics,
) -> Vec<ClusterPlan> {
    let inputs = context.inputs;
    let override_refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(crate::model::inputs::OverridePolicy::as_ref)
        .collect();
    let digests = reuse::Digests::new(inputs, context.options.format);
    let applicable: Vec<Vec<&OverridePolicyRef<'_>>> = apps
        .iter_mut()
        .map(|app| {
            let Some(template) = context.templates.get(&app.key) else {
                return Vec::new();
            };
            let applicable = overrides::applicable(&override_refs, &template.view());
            let policy = policy_of(inputs, app);
            app.digest = Some(digests.app(app, template, policy, &applicable));
            applicable
        })
        .collect();
    let by_name: BTreeMap<&str, &Cluster> = fleet.iter().map(|c| (c.name.as_str(), c)).collect();
    let jobs: Vec<Job<'_>> = apps
        .iter()
        .enumerate()
        .flat_map(|(i, app)| {
            let live = app
                .binding
                .clusters
                .iter()
                .filter(|a| !a.held)
                .map(move |a| (i, a, false));
            let shadow = app.binding.would_be.iter().flatten();
            live.chain(shadow.map(move |a| (i, a, true)))
        })
        .filter_map(|(i, a, shadow)| {
            // Every application comes from a template; a binding's cluster
            // outside the fleet was reported when the binding was made.
            let template = context.templates.get(&apps[i].key)?;
            by_name.get(a.cluster.as_str()).map(|cluster| Job {
                app: i,
                template,
                cluster,
                replicas: a.replicas,
                shadow,
            })
        })
        .collect();
    // Decided once per application, not per job: whether it keeps its
    // files, and (a manifest's path names no cluster) where they are.
    let reusable: Vec<bool> = apps
        .iter()
        .map(|app| {
            let recorded = context.previous.bindings.get(&app.key);
            context.options.reuse
                && app.digest.is_some()
                && recorded.and_then(|b| b.digest.as_ref()) == app.digest.as_ref()
        })
        .collect();
    let manifest_paths: Vec<Option<String>> = apps
        .iter()
        .zip(&reusable)
        .map(|(app, reusable)| {
            (*reusable && context.options.format == Format::Manifests)
                .then(|| emit::file_of(&app.key, "", Format::Manifests))
        })
        .collect();
    type Outcome = (usize, String, bool, Result<Made, Diagnostic>);
    let apps_ref: &[App] = apps;
    let results: Vec<Outcome> = jobs
        .par_iter()
        .map(|job| {
            let app = &apps_ref[job.app];
            let result = (reusable[job.app] && !job.shadow)
                .then(|| kept(context, app, job, manifest_paths[job.app].as_deref()))
                .flatten()
                .map(|file| Ok(Made::Kept(file)))
                .unwrap_or_else(|| {
                    render_one(context, app, job, &applicable[job.app]).map(|(file, applied)| {
                        // Dropped here, in the job, unless kept for explain.
                        let applied = if context.options.record_overrides {
                            applied
                        } else {
                            overrides::Applied::default()
                        };
                        Made::Rendered(file, applied)
                    })
                });
            (job.app, job.cluster.name.clone(), job.shadow, result)
        })
        .collect();
    let mut per_cluster: BTreeMap<String, Vec<Rendered>> =
        fleet.iter().map(|c| (c.name.clone(), Vec::new())).collect();
    let mut shadows: BTreeMap<String, Vec<Rendered>> = BTreeMap::new();
    for (index, cluster, shadow, result) in results {
        match (result, shadow) {
            (Ok(made), true) => shadows.entry(cluster).or_default().push(made.into_file()),
            (Ok(Made::Rendered(file, applied)), false) => {
                if context.options.record_overrides {
                    apps[index].overrides.insert(cluster.clone(), applied);
                }
                per_cluster.entry(cluster).or_default().push(file);
            }
            (Ok(Made::Kept(file)), false) => per_cluster.entry(cluster).or_default().push(file),
            // A held cluster's would-be object is only counted; its fault
            // surfaces when the cluster is unpaused.
            (Err(_), true) => {}
            (Err(d), false) => diagnostics.push(d),
        }
    }
    let mut frozen: BTreeMap<String, Vec<ObjectKey>> = BTreeMap::new();
    for app in apps.iter() {
        for a in app.binding.clusters.iter().filter(|a| a.held) {
            frozen
                .entry(a.cluster.clone())
                .or_default()
                .push(app.key.clone());
        }
    }
    let format = context.options.format;
    for (name, objects) in per_cluster.iter_mut() {
        // A frozen object keeps its namespace: pruning the Namespace would
        // delete what the hold keeps running.
        let previous = context.previous;
        let frozen_in: BTreeSet<&str> = frozen
            .get(name)
            .into_iter()
            .flatten()
            .filter(|key| {
                let path = format!("clusters/{name}/{}", emit::file_of(key, name, format));
                previous.files.contains_key(&path) || previous.unread.contains(&path)
            })
            .filter_map(|key| key.namespace.as_deref())
            .collect();
        if let Err(d) = add_namespaces(objects, &frozen_in, name, format) {
            diagnostics.push(d);
        }
    }
    for (name, objects) in shadows.iter_mut() {
        if let Err(d) = add_namespaces(objects, &BTreeSet::new(), name, format) {
            diagnostics.push(d);
        }
    }
    per_cluster
        .into_iter()
        .map(|(name, mut objects)| {
            objects.sort_by(|a, b| a.key.cmp(&b.key));
            let mut shadow = shadows.remove(&name).unwrap_or_default();
            shadow.sort_by(|a, b| a.key.cmp(&b.key));
            ClusterPlan {
                paused: paused.contains(&name),
                frozen: frozen.remove(&name).unwrap_or_default(),
                name,
                objects,
                shadow,
            }
        })
        .collect()
}

/// A job's outcome: a freshly rendered file (with the overrides applied),
/// or the previous render's file, kept because the digest did not change.
enum Made {
    Rendered(Rendered, overrides::Applied),
    Kept(Rendered),
}

impl Made {
    fn into_file(self) -> Rendered {
        match self {
            Made::Rendered(file, _) | Made::Kept(file) => file,
        }
    }
}

/// The previous file of a live job of an application that keeps its files
/// (reuse is on and its render digest is the one recorded with them), if
/// the previous render has it.
fn kept(
    context: &RenderContext<'_>,
    app: &App,
    job: &Job<'_>,
    manifest_path: Option<&str>,
) -> Option<Rendered> {
    let path = match manifest_path {
        Some(path) => path.to_string(),
        None => emit::file_of(&app.key, &job.cluster.name, context.options.format),
    };
    let full = format!("clusters/{}/{path}", job.cluster.name);
    let bytes = match context.previous.files.get(&full) {
        Some(bytes) => Some(bytes.clone()),
        None if context.previous.unread.contains(&full) => None,
        None => return None,
    };
    Some(Rendered {
        key: app.key.clone(),
        path,
        bytes,
    })
}

/// Every namespace a cluster's objects (and the `frozen` objects it keeps
/// from the previous render) live in is created on it, unless the source
/// already sends that Namespace or Kubernetes provides it.
fn add_namespaces(
    objects: &mut Vec<Rendered>,
    frozen: &BTreeSet<&str>,
    cluster: &str,
    format: Format,
) -> Result<(), Diagnostic> {
    let present: BTreeSet<&str> = objects
        .iter()
        .filter(|o| o.key.kind == "Namespace" && o.key.api_version == "v1")
        .map(|o| o.key.name.as_str())
        .collect();
    let needed: BTreeSet<String> = objects
        .iter()
        .filter_map(|o| o.key.namespace.as_deref())
        .chain(frozen.iter().copied())
        .filter(|ns| !present.contains(ns) && !RESERVED_NAMESPACES.contains(ns))
        .map(str::to_string)
        .collect();
    for namespace in needed {
        let mut metadata = Map::new();
        metadata.insert("name".into(), Value::String(namespace.clone()));
        let mut value = Map::new();
        value.insert("apiVersion".into(), Value::String("v1".into()));
        value.insert("kind".into(), Value::String("Namespace".into()));
        value.insert("metadata".into(), Value::Object(metadata));
        let key = ObjectKey {
            api_version: "v1".into(),
            kind: "Namespace".into(),
            namespace: None,
            name: namespace,
        };
        let (path, bytes) = emit::object_file(
            &key,
            Value::Object(value),
            WorkOptions::default(),
            cluster,
            format,
        )?;
        objects.push(Rendered {
            key,
            path,
            bytes: Some(bytes),
        });
    }
    Ok(())
}

/// One application for one cluster: prune, revise replicas, override, run
/// the revise-object hook, annotate, serialise.
fn render_one(
    context: &RenderContext<'_>,
    app: &App,
    job: &Job<'_>,
    applicable: &[&OverridePolicyRef<'_>],
) -> Result<(Rendered, overrides::Applied), Diagnostic> {
    let (inputs, interpreter, template, cluster, replicas) = (
        context.inputs,
        context.interpreter,
        job.template,
        job.cluster,
        job.replicas,
    );
    let key = &template.key;
    let mut value = template.value.clone();
    interpret::prune(&key.api_version, &key.kind, &mut value);
    if app.binding.revise {
        interpreter
            .revise_replicas(key, &mut value, replicas)
            .map_err(|error| error.diagnostic(key, Some(&cluster.name)))?;
        if let Some(total) = interpret::completions(&key.api_version, &key.kind, &template.value) {
            let shares: Vec<(String, u64)> = app
                .binding
                .clusters
                .iter()
                .map(|a| (a.cluster.clone(), a.replicas))
                .collect();
            let divided = schedule::divide::divide_completions(total, &shares);
            if let Some((_, completions)) = divided.iter().find(|(c, _)| c == &cluster.name) {
                interpret::revise_completions(&mut value, *completions);
            }
        }
    }
    let labels = cluster_labels(cluster, app);
    let view = cluster.view(&labels);
    let applied = overrides::apply(&mut value, applicable, &view).map_err(|error| {
        let policy = inputs
            .override_policies
            .iter()
            .find(|p| p.name == error.policy_name && p.namespace == error.policy_namespace);
        let segments: Vec<&str> = error.path_in_spec.split('/').filter(|s| !s.is_empty()).collect();
        Diagnostic::error(
            Code::OverrideFailed,
            format!(
                "{} rule {} cannot be applied to `{}` for cluster `{}`: {}",
                policy.map_or_else(|| error.policy_name.clone(), |p| p.display()),
                error.rule,
                key,
                cluster.name,
                error.fault
            ),
        )
        .at_opt(policy.map(|p| p.doc.at(&segments)))
        .help("fix the path or operator; `replace` and `remove` need an existing path, `add` an existing parent")
    })?;
    let hook_cluster = interpret::HookCluster {
        name: &cluster.name,
        labels: &labels,
    };
    let hook_fort = interpret::HookFort {
        enabled: fort_enabled(inputs, app),
        cluster: app.fort.as_ref().map(|f| f.cluster.as_str()),
    };
    interpreter
        .revise_object(key, &mut value, &hook_cluster, replicas, &hook_fort)
        .map_err(|error| error.diagnostic(key, Some(&cluster.name)))?;
    check_revised(inputs, interpreter, key, &value)
        .map_err(|error| error.diagnostic(key, Some(&cluster.name)))?;
    annotate(&mut value, app, &applied);
    let (path, bytes) = emit::object_file(
        key,
        value,
        work_options(inputs, app),
        &cluster.name,
        context.options.format,
    )?;
    Ok((
        Rendered {
            key: key.clone(),
            path,
            bytes: Some(bytes),
        },
        applied,
    ))
}

/// What Lua scripts returned, checked like a template (SPEC §10): a script
/// that writes a field the kind does not have, or a value it does not
/// allow, fails like a script that raises an error.
fn check_revised(
    inputs: &Inputs,
    interpreter: &interpret::Interpreter,
    key: &ObjectKey,
    value: &Value,
) -> Result<(), interpret::InterpretError> {
    if !interpreter.revises(key) {
        return Ok(());
    }
    let Some(catalog) = inputs.catalog.as_deref() else {
        return Ok(());
    };
    let crate::schema::Lookup::Known(kind) = catalog.lookup(&key.api_version, &key.kind) else {
        return Ok(());
    };
    let node = crate::load::yaml::Node::from_value(value, crate::load::yaml::Pos::default());
    let Some(fault) = crate::schema::validate_object(catalog.schemas(), kind.root, &node)
        .into_iter()
        .next()
    else {
        return Ok(());
    };
    let path = crate::load::typed::display_path(&fault.path);
    let why = match fault.kind {
        crate::schema::FaultKind::UnknownField { field, .. } if path.is_empty() => {
            format!("it returned an object with the unknown field `{field}`")
        }
        crate::schema::FaultKind::UnknownField { field, .. } => {
            format!("it returned an object with the unknown field `{field}` in `{path}`")
        }
        crate::schema::FaultKind::Invalid(message) => {
            format!("it returned an invalid object: `{path}`: {message}")
        }
    };
    match interpreter.revised_object_error(key, why) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// The propagating policy of `app`, if any.
fn policy_of<'a>(inputs: &'a Inputs, app: &App) -> Option<&'a PropagationPolicy> {
    let policy = match &app.source {
        Source::Policy { policy, .. }
        | Source::Pinned {
            policy: Some(policy),
        } => policy,
        _ => return None,
    };
    inputs
        .propagation_policies
        .iter()
        .find(|p| p.name == policy.name && p.namespace == policy.namespace)
}

fn work_options(inputs: &Inputs, app: &App) -> WorkOptions {
    policy_of(inputs, app).map_or_else(WorkOptions::default, |p| WorkOptions {
        overwrite: p.spec.conflict_resolution
            == Some(crate::model::policy::ConflictResolution::Overwrite),
        preserve_on_deletion: p.spec.preserve_resources_on_deletion.unwrap_or(false),
    })
}

/// Whether the application's policy opts into fort placement.
fn fort_enabled(inputs: &Inputs, app: &App) -> bool {
    policy_of(inputs, app).is_some_and(|p| {
        p.annotations
            .get(FORT_ANNOTATION)
            .is_some_and(|v| v == FORT_ENABLED)
    })
}

/// Karmada's bookkeeping, where Karmada puts it: the claiming policy, the
/// applied overrides; and garrison's fort record.
fn annotate(value: &mut Value, app: &App, applied: &overrides::Applied) {
    // SOPS signs every value of the document (its MAC), so a SOPS-encrypted
    // object passes through without a single added annotation.
    if value.get("sops").is_some_and(Value::is_object) {
        return;
    }
    let mut entries: Vec<(String, String)> = Vec::new();
    match &app.source {
        Source::Policy { policy, .. }
        | Source::Pinned {
            policy: Some(policy),
        } => match &policy.namespace {
            Some(ns) => {
                entries.push((policy_match::PP_NAME_ANNOTATION.into(), policy.name.clone()));
                entries.push((policy_match::PP_NAMESPACE_ANNOTATION.into(), ns.clone()));
            }
            None => entries.push((
                policy_match::CPP_NAME_ANNOTATION.into(),
                policy.name.clone(),
            )),
        },
        _ => {}
    }
    entries.extend(applied.annotations());
    if let Some(fort) = &app.fort {
        entries.push((FORT_CLUSTER_ANNOTATION.into(), fort.cluster.clone()));
    }
    if entries.is_empty() {
        return;
    }
    let Some(root) = value.as_object_mut() else {
        return;
    };
    let metadata = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let annotations = metadata
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    if let Some(map) = annotations.as_object_mut() {
        for (k, v) in entries {
            map.insert(k, Value::String(v));
        }
    }
}
