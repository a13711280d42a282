//! The plan: every decision of a render, made from the inputs and the
//! previous render, with no IO.
//!
//! Deciding comes first, one concern per module: which policy (or pinned
//! binding, or Karmada's namespace auto-propagation) claims each template,
//! with its binding and fort ([`claim`], [`pinned`]); the dependencies that
//! follow a workload ([`dependencies`]); the faults Karmada's webhooks would
//! refuse ([`check`]). Then every (application, cluster) object is made by
//! the named steps of [`materialise`], driven per cluster by [`render`].
//! `render`, `diff`, `check` and `explain` all read this one value.

mod check;
mod claim;
mod dependencies;
pub mod materialise;
mod pinned;
mod render;
#[cfg(test)]
mod tests;

pub use materialise::cluster_labels;

use crate::diag::Diagnostics;
use crate::fort::Fort;
use crate::interpret;
use crate::model::cluster::Cluster;
use crate::model::inputs::{Inputs, PropagationPolicy, Template};
use crate::model::layout::Format;
use crate::model::meta::ObjectKey;
use crate::model::policy::Placement;
use crate::model::previous::PreviousRender;
use crate::model::record::{BindingRecord, PolicyRef};
use crate::overrides;
use crate::pause;
use crate::schedule::{policy_match, Binding};
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

impl App {
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
    /// may keep the schedule or some are withheld.
    pub fn record(&self) -> BindingRecord {
        let binding = &self.binding;
        let count = |replicas: u64| if binding.workload { replicas } else { 0 };
        let withheld = &binding.withheld;
        BindingRecord {
            policy: self.policy().cloned(),
            pinned: matches!(self.source, Source::Pinned { .. }),
            workload: binding.workload,
            clusters: binding
                .clusters
                .iter()
                .map(|a| (a.cluster.clone(), count(a.replicas)))
                .collect(),
            replicas: count(binding.desired),
            placement: self.placement_json.clone(),
            affinity_name: binding.affinity_name.clone(),
            fort: self.fort.as_ref().map(|f| f.cluster.clone()),
            held: binding
                .clusters
                .iter()
                .filter(|a| a.held)
                .map(|a| a.cluster.clone())
                .collect(),
            withheld: (binding.remembered || !withheld.is_empty()).then(|| withheld.clone()),
            digest: self.digest.clone(),
        }
    }
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

/// Namespaces every cluster has: never created, never auto-propagated.
pub(crate) const RESERVED_NAMESPACES: &[&str] =
    &["default", "kube-system", "kube-public", "kube-node-lease"];

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
    let fleet = &inputs.clusters;
    let paused = pause::paused_clusters(fleet);
    let templates: BTreeMap<&ObjectKey, &Template> =
        inputs.templates.iter().map(|t| (&t.key, t)).collect();
    let claims = claim::Claims {
        inputs,
        interpreter: &interpreter,
        pinned: pinned::pinned_bindings(inputs, &templates, &mut diagnostics),
        paused: &paused,
        previous,
    };
    let mut apps: Vec<App> = Vec::new();
    let mut unclaimed = Vec::new();
    for template in &inputs.templates {
        match claims.claim(template, &mut diagnostics) {
            claim::Claim::App(app) => apps.push(*app),
            claim::Claim::Unclaimed => unclaimed.push(template.key.clone()),
            claim::Claim::Skipped => {}
        }
    }
    check::unused_policies(inputs, &mut diagnostics);
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

    // Only the clusters in scope are rendered (a shard renders its share).
    let in_scope: Vec<Cluster> = fleet
        .iter()
        .enumerate()
        .filter(|(position, _)| options.scope.contains_at(*position))
        .map(|(_, c)| c.clone())
        .collect();
    let context = render::RenderContext {
        inputs,
        interpreter: &interpreter,
        templates: &templates,
        previous,
        options,
    };
    let clusters =
        render::render_clusters(&context, &mut apps, &in_scope, &paused, &mut diagnostics);
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
fn policy_of<'a>(inputs: &'a Inputs, app: &App) -> Option<&'a PropagationPolicy> {
    let policy = app.policy()?;
    inputs
        .propagation_policies
        .iter()
        .find(|p| p.name == policy.name && p.namespace == policy.namespace)
}
