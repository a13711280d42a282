//! The plan: every decision of a render, made from the inputs and the
//! previous render, with no IO.
//!
//! Deciding comes first, one concern per module: which policy (or pinned
//! binding, or Karmada's namespace auto-propagation) claims each template,
//! with its binding and fort ([`claim`], [`pinned`]); the dependencies that
//! follow a workload ([`dependencies`]); the faults Karmada's webhooks would
//! refuse ([`check`]); and what each cluster receives ([`deliver`]). The
//! plan holds no object: [`materialise`] makes the object of one
//! application for one cluster from the plan and the inputs, and `emit`
//! drives it per cluster. `render`, `diff`, `check` and `explain` all read
//! this one value.

mod check;
mod claim;
mod deliver;
mod dependencies;
pub mod feed;
mod localized;
pub mod materialise;
mod pinned;
mod prior_claim;
mod subscribe;
#[cfg(test)]
mod tests;

pub use materialise::cluster_labels;

use crate::diag::Diagnostics;
use crate::fort::Fort;
use crate::interpret;
use crate::model::inputs::OverridePolicy;
use crate::model::inputs::{Inputs, PropagationPolicy, Template};
use crate::model::layout::Format;
use crate::model::meta::ObjectKey;
use crate::model::policy::Placement;
use crate::model::previous::PreviousRender;
use crate::model::record::{BindingRecord, PolicyRef};
use crate::overrides::{self, OverridePolicyRef};
use crate::pause;
use crate::schedule::{self, policy_match, Binding};
use std::collections::{BTreeMap, BTreeSet};

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
    /// Clusternet Subscriptions feed it (`Subscription/ns/name`, in order).
    Subscription { subscriptions: Vec<String> },
}

/// Clusternet's per-cluster changes of an application's feed: its
/// Globalizations and Localizations, as indices into
/// [`Inputs::globalizations`] and [`Inputs::localizations`], each list in
/// the order Clusternet applies them (which apply depends on the cluster),
/// and the clusters whose share a static division made, which Clusternet
/// writes as a Localization of its own, after every other.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Localizing {
    pub globalizations: Vec<usize>,
    pub localizations: Vec<usize>,
    pub divided: BTreeSet<String>,
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
    /// Clusters in the binding only because workloads that depend on the
    /// application are there (`propagateDeps`), not by its own schedule.
    pub required: BTreeSet<String>,
    /// The override policies that select the template, as indices into
    /// [`Inputs::override_policies`], in the order Karmada applies them.
    pub override_policies: Vec<usize>,
    /// Clusternet's Globalizations and Localizations of the feed.
    pub localizing: Localizing,
    /// What the claiming policy says about the application's Works.
    pub work: WorkOptions,
}

impl App {
    /// A Clusternet Subscription feeds the application.
    pub fn clusternet(&self) -> bool {
        matches!(self.source, Source::Subscription { .. })
    }

    /// The policy that claims the application, also when a pinned binding
    /// names it.
    pub fn policy(&self) -> Option<&PolicyRef> {
        match &self.source {
            Source::Policy { policy, .. }
            | Source::Pinned {
                policy: Some(policy),
            } => Some(policy),
            _ => None,
        }
    }

    /// What the rendered binding records of the application: replicas only
    /// for a workload, and the withheld clusters whenever the next render
    /// may keep the schedule or some are withheld; `digest` is the render
    /// digest its files were made with ([`crate::reuse`]).
    pub fn record(&self, digest: Option<String>) -> BindingRecord {
        let binding = &self.binding;
        let withheld = &binding.withheld;
        BindingRecord {
            policy: self.policy().cloned(),
            pinned: matches!(self.source, Source::Pinned { .. }),
            workload: binding.workload,
            clusters: binding
                .clusters
                .iter()
                .map(|a| {
                    (
                        a.cluster.clone(),
                        schedule::kept_replicas(binding.workload, a),
                    )
                })
                .collect(),
            replicas: if binding.workload { binding.desired } else { 0 },
            placement: binding
                .applied
                .clone()
                .unwrap_or_else(|| self.placement_json.clone()),
            affinity_name: binding.affinity_name.clone(),
            fort: self.fort.as_ref().map(|f| f.cluster.clone()),
            held: binding
                .clusters
                .iter()
                .filter(|a| a.held)
                .map(|a| a.cluster.clone())
                .collect(),
            required: self.required.clone(),
            withheld: (binding.remembered || !withheld.is_empty()).then(|| withheld.clone()),
            digest,
            subscriptions: match &self.source {
                Source::Subscription { subscriptions } => subscriptions.clone(),
                _ => Vec::new(),
            },
        }
    }
}

/// A policy's `conflictResolution` and `preserveResourcesOnDeletion`, which
/// Karmada copies onto each Work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkOptions {
    pub overwrite: bool,
    pub preserve_on_deletion: bool,
}

/// One application's object for one cluster: the application (an index
/// into [`Plan::apps`]) and the replicas of the cluster's share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub app: usize,
    pub replicas: u64,
}

/// What one cluster receives.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterPlan {
    pub name: String,
    pub paused: bool,
    /// The objects made now, in application order.
    pub objects: Vec<Delivery>,
    /// Namespaces created on the cluster for its objects (and for those
    /// it keeps frozen), sorted.
    pub namespaces: Vec<String>,
    /// Applications whose files on this cluster are frozen (held), by key.
    pub frozen: Vec<ObjectKey>,
    /// What the held applications would receive now without their holds.
    pub shadow: Vec<Delivery>,
    /// The namespaces `shadow` would create.
    pub shadow_namespaces: Vec<String>,
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

/// Namespaces every cluster has: never created, never auto-propagated.
pub(crate) const RESERVED_NAMESPACES: &[&str] =
    &["default", "kube-system", "kube-public", "kube-node-lease"];

/// Make every decision of a render. Errors (and warnings) come back as diagnostics.
pub fn plan(inputs: &Inputs, previous: &PreviousRender) -> Result<Plan, Diagnostics> {
    plan_with(inputs, previous, &Options::default())
}

/// Which clusters a plan delivers to, and the format it writes: a held
/// object's file is found where the previous render wrote it, which takes
/// the same format (a change of format while something is held is
/// refused, G0605).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub scope: Scope,
    pub format: Format,
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
    let mut diagnostics = Diagnostics::default();
    check::references(inputs, &mut diagnostics);
    overrides::check::against_schemas(inputs, &mut diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let interpreter = interpret::Interpreter::new(&inputs.customizations, &mut diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let paused = pause::paused_clusters(&inputs.clusters);
    let templates: BTreeMap<&ObjectKey, &Template> =
        inputs.templates.iter().map(|t| (&t.key, t)).collect();
    let subscribing = subscribe::Subscribing::new(inputs, previous, &paused, &mut diagnostics);
    let claims = claim::Claims {
        inputs,
        interpreter: &interpreter,
        pinned: pinned::pinned_bindings(inputs, &templates, &mut diagnostics),
        paused: &paused,
        previous,
        subscribing: &subscribing,
    };
    let (mut apps, mut unclaimed) = claims.claim_all(&mut diagnostics);
    check::unused_policies(inputs, &mut diagnostics);
    check::built_in_interpreters(inputs, &apps, &templates, &interpreter, &mut diagnostics);
    check::undivided_replicas(inputs, &apps, &templates, &interpreter, &mut diagnostics);
    let context = dependencies::Context {
        inputs,
        interpreter: &interpreter,
        templates: &templates,
        paused: &paused,
        previous,
    };
    dependencies::propagate(&context, &mut apps, &mut diagnostics);
    unclaimed.retain(|key| !apps.iter().any(|a| &a.key == key));
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    apps.sort_by(|a, b| a.key.cmp(&b.key));
    settle(inputs, &templates, &mut apps);
    localized::unused(inputs, &apps, &mut diagnostics);
    localized::check(inputs, &apps, &mut diagnostics);
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let delivery = deliver::Delivering {
        inputs,
        previous,
        options,
        paused: &paused,
    };
    let clusters = delivery.clusters(&apps);
    for refusal in delivery.format_change_holds(&clusters) {
        diagnostics.push(refusal);
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let relaxable = crate::model::config::WARNING_CHECKS;
    inputs.config.relax(&mut diagnostics, relaxable, |file| {
        inputs.sources.path(file)
    });
    Ok(Plan {
        apps,
        clusters,
        unclaimed,
        warnings: diagnostics,
    })
}

/// What each application takes from its policies beyond its binding: the
/// override policies that select its template, in Karmada's order, and
/// what the claiming policy says about its Works.
fn settle(inputs: &Inputs, templates: &BTreeMap<&ObjectKey, &Template>, apps: &mut [App]) {
    let refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(OverridePolicyRef::from)
        .collect();
    let work: Vec<WorkOptions> = apps
        .iter()
        .map(|app| work_options(inputs, app, apps))
        .collect();
    for (app, work) in apps.iter_mut().zip(work) {
        app.work = work;
        let Some(template) = templates.get(&app.key) else {
            continue;
        };
        // Karmada's override policies only see what Karmada propagates;
        // a Subscription's feed takes Localizations and Globalizations.
        if matches!(app.source, Source::Subscription { .. }) {
            continue;
        }
        let applicable = overrides::applicable(&refs, &template.view());
        let mut chosen: Vec<usize> = applicable
            .iter()
            .filter_map(|chosen| refs.iter().position(|r| std::ptr::eq(r, *chosen)))
            .collect();
        // A cluster policy that may change the labels or name decides, per
        // cluster, which namespaced policies select what it leaves: any of
        // the namespace's may, so all are candidates.
        if applicable
            .iter()
            .any(|p| p.namespace.is_none() && overrides::may_reselect(p.spec))
        {
            for (i, policy) in refs.iter().enumerate() {
                let same_namespace =
                    policy.namespace.is_some() && policy.namespace == app.key.namespace.as_deref();
                if same_namespace && !chosen.contains(&i) {
                    chosen.push(i);
                }
            }
        }
        app.override_policies = chosen;
    }
}

/// A policy's `conflictResolution` and `preserveResourcesOnDeletion`, which
/// Karmada copies onto each Work. A dependency that only follows its
/// workloads takes them from all of them, as Karmada's dependencies
/// distributor resolves a conflict between them: `Overwrite` when any
/// workload's policy overwrites, and preserved on deletion when any
/// preserves (`detectAndResolveConflictResolution`, `…PreserveOnDeletion`).
fn work_options(inputs: &Inputs, app: &App, apps: &[App]) -> WorkOptions {
    let own = |app: &App| {
        policy_of(inputs, app).map_or_else(WorkOptions::default, |p| WorkOptions {
            overwrite: p.spec.conflict_resolution
                == Some(crate::model::policy::ConflictResolution::Overwrite),
            preserve_on_deletion: p.spec.preserve_resources_on_deletion.unwrap_or(false),
        })
    };
    let Source::Dependency { of } = &app.source else {
        return own(app);
    };
    of.iter()
        .filter_map(|key| apps.iter().find(|a| &a.key == key))
        .map(own)
        .fold(WorkOptions::default(), |all, one| WorkOptions {
            overwrite: all.overwrite || one.overwrite,
            preserve_on_deletion: all.preserve_on_deletion || one.preserve_on_deletion,
        })
}

impl Plan {
    /// The override policies of `app`, in the order they apply.
    pub fn override_policies<'a>(inputs: &'a Inputs, app: &App) -> Vec<&'a OverridePolicy> {
        app.override_policies
            .iter()
            .filter_map(|&i| inputs.override_policies.get(i))
            .collect()
    }
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

/// The propagating policy of `app`, if any.
pub fn policy_of<'a>(inputs: &'a Inputs, app: &App) -> Option<&'a PropagationPolicy> {
    let policy = app.policy()?;
    inputs
        .propagation_policies
        .iter()
        .find(|p| p.name == policy.name && p.namespace == policy.namespace)
}
