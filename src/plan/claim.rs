//! Claiming a template: which policy (or pinned binding, or Karmada's
//! namespace auto-propagation) takes it, where the scheduler puts it, and
//! which cluster holds its fort (SPEC §2, §3).

use super::prior_claim::{self, Reading};
use super::subscribe::Subscribing;
use super::{pinned, placement_json, policy_ref, App, Source, WorkOptions, RESERVED_NAMESPACES};
use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::fort::{self, FortError, FORT_ENABLED};
use crate::interpret;
use crate::model::binding::BindingDoc;
use crate::model::inputs::{Inputs, PropagationPolicy, Template};
use crate::model::meta::{ObjectKey, FORT_CLUSTER_ANNOTATION};
use crate::model::policy::FORT_ANNOTATION;
use crate::model::previous::PreviousRender;
use crate::model::record::BindingRecord;
use crate::pause;
use crate::schedule::{self, policy_match, Binding, Decision};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

/// What claiming reads besides the template.
pub(super) struct Claims<'a> {
    pub inputs: &'a Inputs,
    pub interpreter: &'a interpret::Interpreter,
    /// Pinned bindings by the template they pin.
    pub pinned: BTreeMap<ObjectKey, (Origin, &'a BindingDoc)>,
    pub paused: &'a BTreeSet<String>,
    pub previous: &'a PreviousRender,
    /// Clusternet's Subscriptions, their feeds resolved.
    pub subscribing: &'a Subscribing<'a>,
}

/// What became of one template.
pub(super) enum Claim {
    /// It is an application.
    App(Box<App>),
    /// No policy or binding claims it.
    Unclaimed,
    /// Karmada never propagates it (reported), or it could not be read
    /// (its fault reported).
    Skipped,
}

impl Claims<'_> {
    /// Claim every template: the applications, and the templates nothing
    /// claims.
    pub(super) fn claim_all(&self, diagnostics: &mut Diagnostics) -> (Vec<App>, Vec<ObjectKey>) {
        let mut apps = Vec::new();
        let mut unclaimed = Vec::new();
        let mut bound: Vec<&Template> = Vec::new();
        for template in &self.inputs.templates {
            match self.claim(template, diagnostics) {
                Claim::App(app) => {
                    if matches!(app.source, Source::Policy { .. } | Source::Pinned { .. }) {
                        bound.push(template);
                    }
                    apps.push(*app);
                }
                Claim::Unclaimed => unclaimed.push(template.key.clone()),
                Claim::Skipped => {}
            }
        }
        binding_names_collide(&bound, diagnostics);
        (apps, unclaimed)
    }

    /// Claim `template`, reporting what is wrong on the way.
    pub(super) fn claim(&self, template: &Template, diagnostics: &mut Diagnostics) -> Claim {
        if let Some(why) = policy_match::skip_reason(template) {
            diagnostics.push(
                Diagnostic::warning(
                    Code::ReservedNamespace,
                    format!("`{}` is not rendered: {why}", template.key),
                )
                .at(template.origin)
                .help("move it to another namespace (or drop the label), or remove it from the repository"),
            );
            return Claim::Skipped;
        }
        let policies = &self.inputs.propagation_policies;
        let reading = prior_claim::read(template, policies);
        let choice = match reading {
            Reading::LeftAlone(_) => None,
            Reading::Fresh | Reading::Kept(_) => policy_match::choose_policy(
                &prior_claim::as_read(template, reading, policies),
                policies,
            ),
        };
        let policy = choice.as_ref().map(|c| &policies[c.policy]);
        let previous = self.previous.bindings.get(&template.key);
        if let Some(subscriptions) = self.subscribing.feeds.get(&template.key) {
            return self.subscribed(template, subscriptions, policy, previous, diagnostics);
        }
        if let (Reading::LeftAlone(index), None) = (reading, self.pinned.get(&template.key)) {
            diagnostics.push(left_alone(template, &policies[index]));
            return Claim::Skipped;
        }
        let held = pause::held_for(policy.map(|p| &p.spec), &self.inputs.clusters, self.paused);
        let replicas = match self.interpreter.replicas(template) {
            Ok(replicas) => replicas,
            Err(error) => {
                diagnostics.push(error.diagnostic(&template.key, None));
                return Claim::Skipped;
            }
        };
        let desired = replicas.as_ref().map(|r| r.desired);
        let (source, binding, placement) = if let Some((_, pin)) = self.pinned.get(&template.key) {
            let binding = pinned::pinned_binding(pin, desired, &held, previous);
            let source = Source::Pinned {
                policy: policy.map(policy_ref),
            };
            (source, binding, policy.map(|p| p.spec.placement.clone()))
        } else if self.karmada_namespaces() && auto_propagated_namespace(template) {
            let binding = pinned::everywhere(&self.inputs.clusters, &held, previous);
            (Source::NamespaceAutoPropagation, binding, None)
        } else if let (Some(choice), Some(policy)) = (&choice, policy) {
            // The policy's own schedule: clusters only dependents brought
            // the template to are no clusters it was scheduled on.
            // (Copied only for the few records that list such clusters.)
            let own = previous
                .filter(|p| !p.required.is_empty())
                .map(BindingRecord::own_schedule);
            let request = Scheduling {
                template,
                policy,
                replicas: desired,
                requirements: replicas.as_ref().and_then(|r| r.requirements.as_ref()),
                previous: own.as_ref().or(previous),
                held: &held,
            };
            let binding = self.schedule(&request, diagnostics);
            let source = Source::Policy {
                policy: policy_ref(policy),
                passed_over: choice.passed_over.clone(),
            };
            (source, binding, Some(policy.spec.placement.clone()))
        } else {
            return Claim::Unclaimed;
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
            required: BTreeSet::new(),
            override_policies: Vec::new(),
            localizing: super::Localizing::default(),
            work: WorkOptions::default(),
        };
        let opt_in = policy.map(|p| (fort_enabled(&p.annotations), p.display()));
        place_fort(&mut app, template, opt_in, previous, diagnostics);
        Claim::App(Box::new(app))
    }

    /// A template Subscriptions feed: a Clusternet application, unless a
    /// Karmada policy or pinned binding also claims it (G0210, P4).
    fn subscribed(
        &self,
        template: &Template,
        subscriptions: &[usize],
        policy: Option<&PropagationPolicy>,
        previous: Option<&BindingRecord>,
        diagnostics: &mut Diagnostics,
    ) -> Claim {
        let first = &self.inputs.subscriptions[subscriptions[0]];
        let karmada = match (policy, self.pinned.get(&template.key)) {
            (_, Some(_)) => Some("a ResourceBinding in the source".to_string()),
            (Some(policy), None) => Some(policy.display()),
            (None, None) => None,
        };
        if let Some(karmada) = karmada {
            diagnostics.push(
                Diagnostic::error(
                    Code::ClaimedTwice,
                    format!(
                        "`{}` is claimed by both {} and {karmada}",
                        template.key,
                        first.display()
                    ),
                )
                .at(first.doc.at(&["spec", "feeds"]))
                .help("one control plane delivers each object: drop the feed, or make the Karmada policy's resource selectors skip the template"),
            );
            return Claim::Skipped;
        }
        let mut app = self.subscribing.app(template, subscriptions, diagnostics);
        let fort_subscription = subscriptions
            .iter()
            .map(|&s| &self.inputs.subscriptions[s])
            .find(|s| s.fort_enabled())
            .unwrap_or(first);
        let opt_in = Some((
            fort_subscription.fort_enabled(),
            fort_subscription.display(),
        ));
        place_fort(&mut app, template, opt_in, previous, diagnostics);
        Claim::App(Box::new(app))
    }

    /// Karmada's namespace auto-propagation applies: the repository uses
    /// Karmada's propagation API, or no Subscription (a Clusternet-only
    /// repository delivers the Namespaces its Subscriptions feed).
    fn karmada_namespaces(&self) -> bool {
        !self.inputs.propagation_policies.is_empty() || self.inputs.subscriptions.is_empty()
    }

    /// Schedule by policy; a schedule that leaves the application nowhere
    /// is a warning (Karmada keeps the previous schedule, or none).
    fn schedule(&self, request: &Scheduling<'_>, diagnostics: &mut Diagnostics) -> Binding {
        let (template, policy) = (request.template, request.policy);
        let placement_json = placement_json(&policy.spec.placement);
        let at = policy.doc.at(&["spec", "placement"]);
        let binding = schedule::schedule(
            &schedule::Request {
                api_version: &template.key.api_version,
                kind: &template.key.kind,
                placement: &policy.spec.placement,
                placement_json: &placement_json,
                replicas: request.replicas,
                requirements: request.requirements,
                previous: request.previous,
                held: request.held,
                paused: self.paused,
            },
            &self.inputs.clusters,
        );
        if let Decision::Unschedulable(why) | Decision::KeptAfterFailure(why) = &binding.decision {
            diagnostics.push(
                Diagnostic::warning(
                    Code::Unschedulable,
                    format!("`{}` is not scheduled: {why}", template.key),
                )
                .at(at)
                .help("check the placement's affinity, tolerations and spread constraints against the fleet"),
            );
        }
        binding
    }
}

/// What scheduling one template by its policy needs.
struct Scheduling<'a> {
    template: &'a Template,
    policy: &'a PropagationPolicy,
    replicas: Option<u64>,
    requirements: Option<&'a schedule::estimate::ReplicaRequirements>,
    previous: Option<&'a BindingRecord>,
    held: &'a BTreeSet<String>,
}

/// Refuse templates Karmada would give one binding: its binding's name is
/// the template's name (`:` read as `.`, lower-cased) and kind, in the
/// template's namespace, whatever the group. Karmada's detector binds the
/// template it sees first and refuses the other a binding owned by another
/// object (it waits for the first binding to be garbage-collected, which
/// never happens), so which of them a member gets depends on the order they
/// were created in, which a repository does not hold.
fn binding_names_collide(bound: &[&Template], diagnostics: &mut Diagnostics) {
    let mut seen: BTreeMap<(Option<&str>, String), &Template> = BTreeMap::new();
    let mut ordered = bound.to_vec();
    ordered.sort_by_key(|t| t.origin);
    for template in ordered {
        let key = &template.key;
        let name = crate::model::binding::binding_name(&key.name, &key.kind);
        match seen.entry((key.namespace.as_deref(), name)) {
            Entry::Occupied(first) => diagnostics.push(
                Diagnostic::error(
                    Code::DuplicateObject,
                    format!(
                        "`{}` ({}) and `{key}` ({}) are one binding for Karmada (`{}`): its detector binds the one it sees first and never delivers the other",
                        first.get().key, first.get().key.api_version, key.api_version, first.key().1
                    ),
                )
                .at(template.origin)
                .help("rename one of them: Karmada names a binding after the template's name (`:` read as `.`, in lower case) and kind, whatever its API group"),
            ),
            Entry::Vacant(slot) => {
                slot.insert(template);
            }
        }
    }
}

/// G0209 for a template whose claim names a policy that does not select
/// it: Karmada's detector leaves it alone ([`prior_claim`]).
fn left_alone(template: &Template, policy: &PropagationPolicy) -> Diagnostic {
    Diagnostic::warning(
        Code::ReservedNamespace,
        format!(
            "`{}` is not rendered: it carries Karmada's claim by {}, which does not select it, and Karmada leaves such a template alone",
            template.key,
            policy.display()
        ),
    )
    .at(template.origin)
    .help("remove the claim (the policy's `permanent-id` label and name annotations) so that the best matching policy takes the template, or make the policy select it")
}

/// Karmada's namespace controller sends every Namespace to every cluster,
/// whatever policy also selects it, unless it opts out or is reserved.
fn auto_propagated_namespace(template: &Template) -> bool {
    template.key.kind == "Namespace"
        && template.key.api_version == "v1"
        && template
            .labels
            .get("namespace.karmada.io/skip-auto-propagation")
            .is_none_or(|v| v != "true")
        && !RESERVED_NAMESPACES.contains(&template.key.name.as_str())
        && !policy_match::namespace_is_reserved(&template.key.name)
}

/// The policy or Subscription annotations opt in to fort placement.
fn fort_enabled(annotations: &BTreeMap<String, String>) -> bool {
    annotations
        .get(FORT_ANNOTATION)
        .is_some_and(|v| v == FORT_ENABLED)
}

/// Choose the fort when the claiming policy or Subscription (`opt_in`:
/// whether it opts in, and its name) does (SPEC §3); a pin without the
/// opt-in is a warning, a pin to a non-candidate an error.
fn place_fort(
    app: &mut App,
    template: &Template,
    opt_in: Option<(bool, String)>,
    previous: Option<&BindingRecord>,
    diagnostics: &mut Diagnostics,
) {
    if opt_in.as_ref().is_some_and(|(enabled, _)| *enabled) {
        let pin = template
            .annotations
            .get(FORT_CLUSTER_ANNOTATION)
            .map(String::as_str);
        match fort::choose_fort(&app.binding, pin, previous.and_then(|p| p.fort.as_deref())) {
            Ok(fort) => app.fort = fort,
            Err(FortError::PinNotCandidate { pin, candidates }) => diagnostics.push(
                Diagnostic::error(
                    Code::FortPinNotCandidate,
                    format!(
                        "`{}` pins its fort to cluster `{pin}`, which is not a candidate",
                        template.key
                    ),
                )
                .at(template.fort_pin_origin.unwrap_or(template.origin))
                .help(if candidates.is_empty() {
                    "the application has no unpaused cluster in its binding; remove the pin or unpause a cluster".to_string()
                } else {
                    format!("pin one of the binding's unpaused clusters: {}", quoted(&candidates))
                }),
            ),
        }
    } else if let (Some((_, claimer)), Some(pin_at)) = (opt_in, template.fort_pin_origin) {
        diagnostics.push(
            Diagnostic::warning(
                Code::IgnoredField,
                format!(
                    "`{}` pins its fort, but {claimer} does not enable fort placement; the pin has no effect",
                    template.key,
                ),
            )
            .at(pin_at)
            .help(format!(
                "annotate the {} with `{FORT_ANNOTATION}: {FORT_ENABLED}`, or remove the pin",
                if claimer.starts_with("Subscription/") { "Subscription" } else { "policy" }
            )),
        );
    }
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
