//! `propagateDeps`: what a workload depends on (the ConfigMaps, Secrets,
//! ServiceAccount and PVCs its pod template references, an Ingress's TLS
//! Secrets, a ServiceImport's derived Service and EndpointSlices, or what
//! a customization names) follows it to the same clusters.

use super::{App, Source, WorkOptions};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::interpret::{self, DependenciesError};
use crate::model::inputs::{Inputs, Template};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::pause;
use crate::schedule::{Assignment, Binding, Decision};
use std::collections::{BTreeMap, BTreeSet};

/// What propagating dependencies reads.
pub(super) struct Context<'a> {
    pub inputs: &'a Inputs,
    pub interpreter: &'a interpret::Interpreter,
    pub templates: &'a BTreeMap<&'a ObjectKey, &'a Template>,
    pub paused: &'a BTreeSet<String>,
    pub previous: &'a PreviousRender,
}

/// Give every dependency of a `propagateDeps` workload the workload's
/// clusters: a dependency that is an application of its own gains them
/// (its own clusters first), any other becomes an application that only
/// follows.
pub(super) fn propagate(context: &Context<'_>, apps: &mut Vec<App>, diagnostics: &mut Diagnostics) {
    for (key, required) in required(context, apps, diagnostics) {
        match apps.iter_mut().find(|a| a.key == key) {
            Some(existing) if existing.clusternet() => {
                diagnostics.push(fed_and_followed(context, existing, &required));
            }
            Some(existing) => widen(existing, required),
            None => apps.push(follower(context, key, required)),
        }
    }
}

/// A Subscription feeds a template a Karmada workload's `propagateDeps`
/// also brings: two control planes would deliver it (G0210).
fn fed_and_followed(context: &Context<'_>, app: &App, required: &Required) -> Diagnostic {
    let subscription = context
        .inputs
        .subscriptions
        .iter()
        .find(|s| matches!(&app.source, Source::Subscription { subscriptions } if subscriptions.contains(&s.display())));
    let of: Vec<String> = required.of.iter().map(|k| format!("`{k}`")).collect();
    Diagnostic::error(
        Code::ClaimedTwice,
        format!(
            "`{}` is fed by {} and is a dependency Karmada propagates with {}",
            app.key,
            subscription.map_or_else(|| "a Subscription".to_string(), |s| s.display()),
            of.join(", ")
        ),
    )
    .at_opt(subscription.map(|s| s.doc.at(&["spec", "feeds"])))
    .help("one control plane delivers each object: drop the feed, or turn off `propagateDeps` on the workload's policy")
}

/// What each dependency needs, from the workloads that reference it.
fn required(
    context: &Context<'_>,
    apps: &[App],
    diagnostics: &mut Diagnostics,
) -> BTreeMap<ObjectKey, Required> {
    let (inputs, templates) = (context.inputs, context.templates);
    let mut required: BTreeMap<ObjectKey, Required> = BTreeMap::new();
    for app in apps {
        let propagate = super::policy_of(inputs, app)
            .is_some_and(|p| p.spec.propagate_deps || p.spec.association);
        if !propagate {
            continue;
        }
        let Some(template) = templates.get(&app.key) else {
            continue;
        };
        let dependencies = match context
            .interpreter
            .dependencies(template, &inputs.templates)
        {
            Ok(dependencies) => dependencies,
            Err(DependenciesError::Script(error)) => {
                diagnostics.push(error.diagnostic(&app.key, None));
                continue;
            }
            Err(DependenciesError::Unnamed(unnamed)) => {
                diagnostics.push(unnamed_reference(template, &unnamed));
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
    required
}

/// G0212: Karmada's native interpreter names a dependency without a name
/// (an Ingress TLS entry without `secretName`), its validation refuses the
/// whole list, and the dependencies distributor propagates none of them;
/// the workload itself is delivered.
fn unnamed_reference(template: &Template, unnamed: &interpret::Unnamed) -> Diagnostic {
    Diagnostic::warning(
        Code::DependenciesRefused,
        format!(
            "`{}` propagates no dependencies: `{}` names none, and Karmada refuses every dependency of a workload when one has no name",
            template.key, unnamed.field
        ),
    )
    .at(template.origin)
    .help("give every TLS entry a `secretName` (or select the Secrets with the policy itself), or turn off `propagateDeps`")
}

/// What a dependency's held clusters would get without the holds: the
/// object, wherever a workload that references it is or would be.
fn would_be(required: &Required, held: &BTreeSet<String>) -> Vec<Assignment> {
    required
        .clusters
        .union(&required.without_holds)
        .filter(|c| held.contains(*c))
        .map(|c| Assignment {
            cluster: c.clone(),
            replicas: 0,
            held: false,
        })
        .collect()
}

/// A dependency with a schedule of its own also goes where its workloads go.
fn widen(existing: &mut App, required: Required) {
    for extra in would_be(&required, &existing.held) {
        let shadow = existing.binding.would_be.get_or_insert_with(Vec::new);
        if !shadow.iter().any(|a| a.cluster == extra.cluster) {
            shadow.push(extra);
        }
    }
    for cluster in required.clusters {
        if !existing
            .binding
            .clusters
            .iter()
            .any(|a| a.cluster == cluster)
        {
            let is_held = existing.held.contains(&cluster);
            existing.required.insert(cluster.clone());
            existing.binding.clusters.push(Assignment {
                cluster,
                replicas: 0,
                held: is_held,
            });
        }
    }
}

/// A dependency that is no application of its own: it follows its
/// workloads, frozen where a cluster is held and it was before.
fn follower(context: &Context<'_>, key: ObjectKey, required: Required) -> App {
    let held = pause::held_for(None, &context.inputs.clusters, context.paused);
    let had = |c: &str| {
        context
            .previous
            .bindings
            .get(&key)
            .is_some_and(|p| p.clusters.iter().any(|(n, _)| n == c))
    };
    let would_be = would_be(&required, &held);
    let assignments = required
        .clusters
        .into_iter()
        .filter(|c| !held.contains(c) || had(c))
        .map(|c| Assignment {
            held: held.contains(&c),
            cluster: c,
            replicas: 0,
        })
        .collect();
    App {
        key,
        source: Source::Dependency { of: required.of },
        binding: Binding {
            clusters: assignments,
            desired: 0,
            workload: false,
            revise: false,
            divide_completions: false,
            affinity_name: None,
            decision: Decision::Scheduled(
                "follows the workloads that reference it (propagateDeps)".into(),
            ),
            static_weights: None,
            notes: Vec::new(),
            would_be: (!would_be.is_empty()).then_some(would_be),
            withheld: BTreeSet::new(),
            remembered: false,
            applied: None,
        },
        fort: None,
        placement: None,
        placement_json: None,
        held,
        required: BTreeSet::new(),
        override_policies: Vec::new(),
        localizing: super::Localizing::default(),
        work: WorkOptions::default(),
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
