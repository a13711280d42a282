//! Clusternet applications (clusternet-semantics §2–§4, §6): the templates
//! Subscriptions feed, where each goes, with how many replicas, and which
//! Localizations and Globalizations change it.
//!
//! A feed resolves to exactly one template (no template, or several, stops
//! the render: rendering nothing would prune the application). Each
//! Subscription binds its clusters once ([`schedule::clusternet::select`]);
//! a Dividing one divides each divisible feed's replicas over them with
//! Clusternet's static algorithm. A Dividing Subscription keeps the
//! schedule the previous render recorded, for all its feeds together, until
//! its spec, a feed's replicas, its clusters or their holds change
//! (Clusternet's `admit`, P12, with SPEC §9's holds); Replication is worked
//! out again on every render. Paused clusters keep what they had, exactly
//! as for Karmada applications (SPEC §5).

use super::{App, Localizing, Source, WorkOptions};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::clusternet::{Feed, SchedulingStrategy, DEFAULT_PRIORITY};
use crate::model::inputs::{Inputs, Subscription, Template};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::model::record::BindingRecord;
use crate::schedule::clusternet::{self as cn, Selection};
use crate::schedule::{self, Assignment, Binding, ClusterNote, Decision};
use std::collections::{BTreeMap, BTreeSet};

/// Every Subscription's feeds resolved and clusters bound, and which of
/// them keep their previous schedule.
pub(super) struct Subscribing<'a> {
    inputs: &'a Inputs,
    previous: &'a PreviousRender,
    paused: &'a BTreeSet<String>,
    /// The Subscriptions feeding each template, as indices into
    /// [`Inputs::subscriptions`].
    pub feeds: BTreeMap<ObjectKey, Vec<usize>>,
    selections: Vec<Selection>,
    /// Per Subscription: why its schedule is made again (`None`: kept).
    memory: Vec<Option<Decision>>,
    /// Each cluster's `namespace/name`, by name: the fleet, and the order
    /// bindings are recorded in.
    fleet: BTreeMap<String, String>,
    /// The Globalizations and Localizations of each template they name.
    localizing: BTreeMap<ObjectKey, Localizing>,
}

impl<'a> Subscribing<'a> {
    pub(super) fn new(
        inputs: &'a Inputs,
        previous: &'a PreviousRender,
        paused: &'a BTreeSet<String>,
        diagnostics: &mut Diagnostics,
    ) -> Subscribing<'a> {
        let feeds = resolve(inputs, diagnostics);
        let selections: Vec<cn::Selection> = inputs
            .subscriptions
            .iter()
            .map(|s| cn::select(&s.spec, &inputs.clusters))
            .collect();
        for (subscription, selection) in inputs.subscriptions.iter().zip(&selections) {
            if selection.sub_groups_pick_none {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidPlacement,
                        format!("{} picks no cluster: `schedulingBySubGroup` takes each subscriber's first `minClusters` feasible clusters, and that is none (each `minClusters` is 0, or its subscriber matches no feasible cluster); Clusternet's scheduler then fails (`selectClusters`: \"empty clusterScoreList\") and never schedules the Subscription, so the clusters keep what it delivered before", subscription.display()),
                    )
                    .at(subscription.doc.at(&["spec", "schedulingBySubGroup"]))
                    .help("give a subscriber that matches a cluster `subGroupStrategy: {minClusters: N}` with N of 1 or more, or remove the Subscription to stop delivering"),
                );
            }
        }
        let mut subscribing = Subscribing {
            inputs,
            previous,
            paused,
            feeds,
            selections,
            memory: Vec::new(),
            fleet: inputs
                .clusters
                .iter()
                .map(|c| (c.name.clone(), c.namespaced_name()))
                .collect(),
            localizing: localizing(inputs),
        };
        subscribing.memory = (0..inputs.subscriptions.len())
            .map(|i| subscribing.recall(i))
            .collect();
        subscribing
    }

    /// The application of `template`, which `subscriptions` feed.
    pub(super) fn app(
        &self,
        template: &Template,
        subscriptions: &[usize],
        diagnostics: &mut Diagnostics,
    ) -> App {
        let previous = self.previous.bindings.get(&template.key);
        let desired = desired_replicas(template);
        let text = spec_text(self.inputs, subscriptions);
        let kept = subscriptions.iter().all(|&s| self.memory[s].is_none());
        let (mut binding, divided) = if kept {
            let mut binding = self.keep(previous, desired);
            let divided = self.kept_division(&binding, subscriptions, desired);
            binding.revise = !divided.is_empty();
            self.with_would_be(binding, divided, subscriptions, desired)
        } else {
            let decision = subscriptions
                .iter()
                .find_map(|&s| self.memory[s].clone())
                .unwrap_or(Decision::Scheduled("first schedule".into()));
            self.schedule(
                template,
                subscriptions,
                desired,
                previous,
                decision,
                diagnostics,
            )
        };
        binding.static_weights = Some(self.weights(subscriptions, &binding.clusters));
        App {
            key: template.key.clone(),
            source: Source::Subscription {
                subscriptions: subscriptions
                    .iter()
                    .map(|&s| self.inputs.subscriptions[s].display())
                    .collect(),
            },
            binding,
            fort: None,
            placement: None,
            placement_json: Some(text),
            held: self.paused.clone(),
            required: BTreeSet::new(),
            override_policies: Vec::new(),
            localizing: Localizing {
                divided,
                ..self
                    .localizing
                    .get(&template.key)
                    .cloned()
                    .unwrap_or_default()
            },
            work: WorkOptions::default(),
        }
    }

    /// Whether Subscription `index` keeps its previous schedule (`None`), or
    /// the decision to make it again: Clusternet's `admit` reschedules a
    /// Dividing Subscription only when its spec or a feed's replicas change;
    /// garrison also when a bound cluster is gone or a hold changes.
    fn recall(&self, index: usize) -> Option<Decision> {
        let subscription = &self.inputs.subscriptions[index];
        if subscription.spec.strategy() == SchedulingStrategy::Replication {
            return Some(Decision::Scheduled(
                "Replication: worked out again on every render".into(),
            ));
        }
        let templates: Vec<(&ObjectKey, &Vec<usize>)> = self
            .feeds
            .iter()
            .filter(|(_, subs)| subs.contains(&index))
            .collect();
        let mut reasons = Vec::new();
        for (key, subs) in templates {
            let Some(record) = self.previous.bindings.get(key) else {
                return Some(Decision::Scheduled("first schedule".into()));
            };
            let Some(template) = self.template(key) else {
                continue;
            };
            if record.placement.as_deref() != Some(&spec_text(self.inputs, subs)) {
                reasons.push(format!("{} changed", subscription.display()));
            }
            let desired = desired_replicas(template);
            if let Some(desired) = desired.filter(|_| record.workload) {
                if record.replicas != desired {
                    reasons.push(format!(
                        "replicas of `{key}` changed from {} to {desired}",
                        record.replicas
                    ));
                }
            }
            reasons.extend(self.cluster_changes(record));
        }
        let mut seen = BTreeSet::new();
        reasons.retain(|r| seen.insert(r.clone()));
        (!reasons.is_empty()).then(|| Decision::Rescheduled(reasons.join("; ")))
    }

    /// Clusters of a recorded schedule that left the fleet, holds it
    /// records that were lifted, and clusters of it that are held now.
    fn cluster_changes(&self, record: &BindingRecord) -> Vec<String> {
        let mut reasons = Vec::new();
        for (cluster, _) in &record.clusters {
            if !self.in_fleet(cluster) {
                reasons.push(format!("cluster `{cluster}` left the fleet"));
            }
        }
        let recorded: BTreeSet<&String> = record
            .held
            .iter()
            .chain(record.withheld.iter().flatten())
            .collect();
        for cluster in &recorded {
            if self.in_fleet(cluster) && !self.paused.contains(*cluster) {
                reasons.push(format!("cluster `{cluster}` is no longer paused"));
            }
        }
        for (cluster, _) in &record.clusters {
            if self.paused.contains(cluster) && !recorded.contains(cluster) {
                reasons.push(format!("cluster `{cluster}` was paused"));
            }
        }
        reasons
    }

    fn template(&self, key: &ObjectKey) -> Option<&'a Template> {
        self.inputs.template(key)
    }

    /// The previous schedule, unchanged.
    fn keep(&self, previous: Option<&BindingRecord>, desired: Option<u64>) -> Binding {
        let record = previous.cloned().unwrap_or_default();
        let mut binding = empty_binding(Decision::Kept, desired, false);
        binding.clusters = record
            .clusters
            .iter()
            .map(|(cluster, replicas)| Assignment {
                cluster: cluster.clone(),
                replicas: *replicas,
                held: self.paused.contains(cluster),
            })
            .collect();
        binding.applied = Some(record.placement.clone());
        binding.withheld = record.withheld.clone().unwrap_or_default();
        binding.notes.push(ClusterNote {
            cluster: "*".into(),
            note: "the Subscription, the feed's replicas, its clusters and their holds are unchanged since the previous render: its schedule is kept".into(),
        });
        binding
    }

    /// A schedule made now: each Subscription's clusters (which must not
    /// overlap), the paused ones keeping what they had, and each
    /// Subscription's division of the replicas left over; with the
    /// clusters whose share a division made.
    fn schedule(
        &self,
        template: &Template,
        subscriptions: &[usize],
        desired: Option<u64>,
        previous: Option<&BindingRecord>,
        decision: Decision,
        diagnostics: &mut Diagnostics,
    ) -> (Binding, BTreeSet<String>) {
        self.overlaps(template, subscriptions, diagnostics);
        let selected: Vec<&cn::Bound> = subscriptions
            .iter()
            .flat_map(|&s| self.selections[s].clusters.iter())
            .collect();
        if selected.is_empty() {
            let binding =
                self.unschedulable(template, subscriptions, desired, previous, diagnostics);
            return (binding, BTreeSet::new());
        }
        let kept_held = self.kept_held(previous);
        let mut divided = BTreeSet::new();
        let mut notes = Vec::new();
        let mut clusters = kept_held.clone();
        let bound_by = |cluster: &str| {
            subscriptions
                .iter()
                .position(|&s| {
                    self.selections[s]
                        .clusters
                        .iter()
                        .any(|b| b.cluster == cluster)
                })
                .unwrap_or(0)
        };
        for (i, &s) in subscriptions.iter().enumerate() {
            let selection = &self.selections[s];
            // What a paused cluster keeps counts against the Subscription
            // that binds it (the first, when none does any more).
            let frozen: u64 = kept_held
                .iter()
                .filter(|h| bound_by(&h.cluster) == i)
                .map(|h| h.replicas)
                .sum();
            let active: Vec<&cn::Bound> = selection
                .clusters
                .iter()
                .filter(|b| !self.paused.contains(&b.cluster))
                .collect();
            let to_divide = desired.map(|d| d.saturating_sub(frozen));
            if self.division(s, to_divide, &active).is_some() {
                divided.extend(active.iter().map(|b| b.cluster.clone()));
            }
            clusters.extend(self.shares(s, to_divide, desired, &active));
            notes.extend(selection.notes.iter().cloned());
        }
        clusters.sort_by_key(|a| self.order_key(&a.cluster));
        let mut binding = empty_binding(decision, desired, !divided.is_empty());
        binding.clusters = clusters;
        binding.notes = notes;
        self.with_would_be(binding, divided, subscriptions, desired)
    }

    /// The binding with what its paused clusters would get if every pause
    /// were lifted now (the held-back counts, SPEC §5.5), and the paused
    /// clusters that would get it but have none of it.
    /// The paused clusters a division would give a share join `divided`:
    /// what they are counted to get is made with that share.
    fn with_would_be(
        &self,
        mut binding: Binding,
        mut divided: BTreeSet<String>,
        subscriptions: &[usize],
        desired: Option<u64>,
    ) -> (Binding, BTreeSet<String>) {
        if !self
            .inputs
            .clusters
            .iter()
            .any(|c| self.paused.contains(&c.name))
        {
            return (binding, divided);
        }
        let mut would_be = Vec::new();
        for &s in subscriptions {
            let all: Vec<&cn::Bound> = self.selections[s].clusters.iter().collect();
            let paused: Vec<Assignment> = self
                .shares(s, desired, desired, &all)
                .into_iter()
                .filter(|a| self.paused.contains(&a.cluster))
                .collect();
            if self.division(s, desired, &all).is_some() {
                divided.extend(paused.iter().map(|a| a.cluster.clone()));
            }
            would_be.extend(paused);
        }
        binding.hold_back(would_be);
        (binding, divided)
    }

    /// The assignments Subscription `s` makes over `bound` clusters: a
    /// share of `to_divide` each for a Dividing Subscription with weights
    /// and a divisible feed, else the whole feed (`desired`) each.
    fn shares(
        &self,
        s: usize,
        to_divide: Option<u64>,
        desired: Option<u64>,
        bound: &[&cn::Bound],
    ) -> Vec<Assignment> {
        let divided = self.division(s, to_divide, bound);
        bound
            .iter()
            .enumerate()
            .map(|(i, b)| Assignment {
                cluster: b.cluster.clone(),
                replicas: divided.as_ref().map_or(desired.unwrap_or(0), |d| d[i]),
                held: false,
            })
            .collect()
    }

    /// Subscription `s`'s static division of `replicas` over `bound`, in its
    /// order; `None` when it divides nothing (Replication, a feed without
    /// replicas, or weights that sum to zero).
    fn division(&self, s: usize, replicas: Option<u64>, bound: &[&cn::Bound]) -> Option<Vec<u64>> {
        let weights: Vec<u64> = bound.iter().map(|b| b.weight).collect();
        match replicas {
            Some(r) if self.dividing(s) => cn::static_divide(r, &weights),
            _ => None,
        }
    }

    /// Whether Subscription `s` divides replicas.
    fn dividing(&self, s: usize) -> bool {
        self.inputs.subscriptions[s].spec.strategy() == SchedulingStrategy::Dividing
    }

    /// No Subscription of the feed binds a cluster (Clusternet's FitError):
    /// a warning, and an empty schedule, as Clusternet's scheduler binds
    /// the empty result (its Descriptions are then pruned). Paused clusters
    /// keep what they have.
    fn unschedulable(
        &self,
        template: &Template,
        subscriptions: &[usize],
        desired: Option<u64>,
        previous: Option<&BindingRecord>,
        diagnostics: &mut Diagnostics,
    ) -> Binding {
        let first = &self.inputs.subscriptions[subscriptions[0]];
        // A pick of none is refused already (`Subscribing::new`).
        let refused = subscriptions
            .iter()
            .any(|&s| self.selections[s].sub_groups_pick_none);
        if !refused {
            diagnostics.push(
            Diagnostic::warning(
                Code::Unschedulable,
                format!("`{}` is not scheduled: no cluster fits {}", template.key, first.display()),
            )
            .at(first.doc.at(&["spec", "subscribers"]))
            .help("check the subscribers' clusterAffinity and the clusterTolerations against the ManagedClusters' labels and taints; Clusternet removes what the Subscription delivered"),
            );
        }
        let mut binding = empty_binding(
            Decision::Unschedulable(schedule::Error::NoClusterMatches),
            desired,
            false,
        );
        binding.clusters = self.kept_held(previous);
        for &s in subscriptions {
            binding
                .notes
                .extend(self.selections[s].notes.iter().cloned());
        }
        binding
    }

    /// Two Subscriptions that deliver the template to one cluster: G0210.
    fn overlaps(
        &self,
        template: &Template,
        subscriptions: &[usize],
        diagnostics: &mut Diagnostics,
    ) {
        let mut owner: BTreeMap<&str, usize> = BTreeMap::new();
        for &s in subscriptions {
            for bound in &self.selections[s].clusters {
                let Some(&first) = owner.get(bound.cluster.as_str()) else {
                    owner.insert(&bound.cluster, s);
                    continue;
                };
                let (a, b) = (
                    &self.inputs.subscriptions[first],
                    &self.inputs.subscriptions[s],
                );
                diagnostics.push(
                    Diagnostic::error(
                        Code::ClaimedTwice,
                        format!(
                            "`{}` would reach cluster `{}` twice: from {} and from {}",
                            template.key,
                            bound.cluster,
                            a.display(),
                            b.display()
                        ),
                    )
                    .at(b.doc.at(&["spec", "feeds"]))
                    .help("Clusternet would apply the object twice and the two copies would fight; feed it from one Subscription, or make their subscribers select different clusters"),
                );
                return;
            }
        }
    }

    /// The clusters of a kept schedule whose share a division made: its
    /// unpaused clusters, when a Subscription of the feed divides its
    /// replicas by weights (only a Dividing Subscription's schedule is
    /// kept, and its spec is the one the schedule was made for).
    fn kept_division(
        &self,
        binding: &Binding,
        subscriptions: &[usize],
        desired: Option<u64>,
    ) -> BTreeSet<String> {
        let weighed = subscriptions
            .iter()
            .any(|&s| self.selections[s].clusters.iter().any(|b| b.weight > 0));
        if desired.is_none() || !weighed {
            return BTreeSet::new();
        }
        binding
            .clusters
            .iter()
            .filter(|a| !a.held)
            .map(|a| a.cluster.clone())
            .collect()
    }

    /// The paused clusters of the previous schedule, with what they keep.
    fn kept_held(&self, previous: Option<&BindingRecord>) -> Vec<Assignment> {
        previous
            .map(|p| {
                p.clusters
                    .iter()
                    .filter(|(c, _)| self.paused.contains(c) && self.in_fleet(c))
                    .map(|(c, r)| Assignment {
                        cluster: c.clone(),
                        replicas: *r,
                        held: true,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn in_fleet(&self, name: &str) -> bool {
        self.fleet.contains_key(name)
    }

    /// A cluster's place in Clusternet's binding order (`namespace/name`).
    fn order_key(&self, name: &str) -> String {
        self.fleet
            .get(name)
            .cloned()
            .unwrap_or_else(|| format!("/{name}"))
    }

    /// Each binding cluster's summed subscriber weight: the fort's weight (SPEC §3).
    fn weights(&self, subscriptions: &[usize], clusters: &[Assignment]) -> BTreeMap<String, u64> {
        let mut bound: BTreeMap<&str, u64> = BTreeMap::new();
        for b in subscriptions
            .iter()
            .flat_map(|&s| &self.selections[s].clusters)
        {
            bound.entry(&b.cluster).or_insert(b.weight);
        }
        clusters
            .iter()
            .map(|a| {
                (
                    a.cluster.clone(),
                    bound.get(a.cluster.as_str()).copied().unwrap_or(0),
                )
            })
            .collect()
    }
}

/// A binding with no cluster yet. A feed Clusternet counts replicas of is a
/// workload (each cluster's replicas are recorded, so a paused one keeps
/// what its frozen file has); `revise`: the division is written into it.
fn empty_binding(decision: Decision, desired: Option<u64>, revise: bool) -> Binding {
    Binding {
        clusters: Vec::new(),
        desired: desired.unwrap_or(0),
        workload: desired.is_some(),
        revise,
        divide_completions: false,
        affinity_name: None,
        decision,
        static_weights: None,
        notes: Vec::new(),
        would_be: None,
        withheld: BTreeSet::new(),
        remembered: true,
        applied: None,
    }
}

/// The replicas Clusternet divides for a feed: `spec.replicas` of a kind
/// its FeedInventory parses, 1 when absent (the hub's dry run defaults it)
/// unless the template skips the dry run (P7); `None` for other kinds.
pub(super) fn desired_replicas(template: &Template) -> Option<u64> {
    let key = &template.key;
    if !cn::divisible(&key.api_version, &key.kind) {
        return None;
    }
    match super::feed::fed(template)
        .pointer("/spec/replicas")
        .filter(|v| !v.is_null())
    {
        Some(value) => value.as_u64(),
        None if super::feed::skips_dry_run(template) => None,
        None => Some(1),
    }
}

/// What a schedule is made for, recorded on the binding and compared by
/// the next render: a digest of the spec of each Subscription feeding the
/// template (Clusternet's `admit` compares a hash of the whole spec, too).
fn spec_text(inputs: &Inputs, subscriptions: &[usize]) -> String {
    use sha2::{Digest as _, Sha256};
    let specs: Vec<serde_json::Value> = subscriptions
        .iter()
        .map(|&s| {
            let subscription = &inputs.subscriptions[s];
            serde_json::json!([subscription.display(), subscription.spec])
        })
        .collect();
    let digest = Sha256::digest(serde_json::to_vec(&specs).unwrap_or_default());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// Every template each feed names, by template; a feed naming none is
/// G0211 (P9), a template a Subscription feeds twice G0210.
fn resolve(inputs: &Inputs, diagnostics: &mut Diagnostics) -> BTreeMap<ObjectKey, Vec<usize>> {
    let mut feeds: BTreeMap<ObjectKey, Vec<usize>> = BTreeMap::new();
    for (index, subscription) in inputs.subscriptions.iter().enumerate() {
        for (i, feed) in subscription.spec.feeds.iter().enumerate() {
            if feed.is_helm_chart() {
                continue;
            }
            let at = subscription.doc.at(&["spec", "feeds", &i.to_string()]);
            let found = resolve_feed(inputs, feed);
            if found.is_empty() {
                diagnostics.push(
                    Diagnostic::error(
                        Code::FeedWithoutTemplate,
                        format!(
                            "{} feeds `{feed}`, which no template of the repository is",
                            subscription.display()
                        ),
                    )
                    .at(at)
                    .help(near_feed(inputs, feed)),
                );
            }
            // A feed without a namespace delivers every template of that
            // name, as Clusternet's deployer lists every matching manifest.
            if found.len() > 1 {
                diagnostics.push(
                    Diagnostic::warning(
                        Code::IgnoredField,
                        format!(
                            "{} feeds `{feed}` without a namespace, which names {} templates: every one is delivered, as Clusternet delivers them",
                            subscription.display(),
                            found.len()
                        ),
                    )
                    .at(at)
                    .help("give the feed a `namespace` if one of them was meant"),
                );
            }
            if subscription.spec.strategy() == SchedulingStrategy::Dividing {
                unequal_division(inputs, subscription, feed, &found, at, diagnostics);
            }
            for template in found
                .iter()
                .filter_map(|key| inputs.templates.iter().find(|t| &&t.key == key))
            {
                undeliverable_job(template, subscription, diagnostics);
            }
            for key in found {
                let subs = feeds.entry(key.clone()).or_default();
                if subs.contains(&index) {
                    diagnostics.push(
                        Diagnostic::error(
                            Code::ClaimedTwice,
                            format!("{} feeds `{key}` twice", subscription.display()),
                        )
                        .at(at)
                        .help("list each feed once"),
                    );
                } else {
                    subs.push(index);
                }
            }
        }
    }
    feeds
}

/// A Job a Clusternet v0.18 hub cannot deliver (G0104). Its dry run runs
/// Kubernetes' Job strategy, which labels the pod template and selects it
/// by a `batch.kubernetes.io/controller-uid` of the dry run's own uid
/// (since Kubernetes 1.27; `generateSelector` in
/// `pkg/registry/batch/job/strategy.go`), and the hub's trimmer removes
/// only the older `controller-uid` (`trimBatchJob`, `trimmer.go`). Every
/// member then refuses the Job, whose selector is not its own uid
/// (`validateGeneratedSelector`: "`selector` not auto-generated"), or the
/// dry run refuses it first, when the template carries a controller uid of
/// its own. Only a Job that picks its selector by hand
/// (`manualSelector: true`) or skips the dry run
/// (`apps.clusternet.io/skip-validating: "true"`) arrives.
fn undeliverable_job(
    template: &Template,
    subscription: &Subscription,
    diagnostics: &mut Diagnostics,
) {
    let key = &template.key;
    if key.kind != "Job" || crate::model::meta::group_of(&key.api_version) != "batch" {
        return;
    }
    let fed = super::feed::fed(template);
    let skips = super::feed::skips_dry_run(template);
    let manual = fed.pointer("/spec/manualSelector") == Some(&serde_json::Value::Bool(true));
    if manual {
        return;
    }
    // Stored as written, a Job's own controller uid (an export's) is no
    // member's uid either: each refuses it the same way.
    let exported_uid = [
        "/spec/selector/matchLabels",
        "/spec/template/metadata/labels",
    ]
    .iter()
    .filter_map(|p| fed.pointer(p).and_then(serde_json::Value::as_object))
    .any(|labels| {
        labels.contains_key("controller-uid")
            || labels.contains_key("batch.kubernetes.io/controller-uid")
    });
    if skips && !exported_uid {
        return;
    }
    if skips {
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidField,
                format!(
                    "{} feeds `{key}`, whose selector or pod labels carry a controller uid: the hub stores it as written (`apps.clusternet.io/skip-validating`), and every member cluster refuses a Job selected by another Job's uid (\"`selector` not auto-generated\")",
                    subscription.display()
                ),
            )
            .at(template.origin)
            .help("remove the `controller-uid` and `batch.kubernetes.io/controller-uid` labels and the generated `selector` (they come from `kubectl get -o yaml`)"),
        );
        return;
    }
    diagnostics.push(
        Diagnostic::error(
            Code::InvalidField,
            format!(
                "{} feeds `{key}`, which a Clusternet hub cannot deliver: its dry run selects the Job by a `batch.kubernetes.io/controller-uid` of its own uid, the hub trims only `controller-uid`, and every member cluster then refuses the Job (\"`selector` not auto-generated\")",
                subscription.display()
            ),
        )
        .at(template.origin)
        .help("annotate the Job `apps.clusternet.io/skip-validating: \"true\"` (the hub then stores it as written and each member generates its selector), or set `spec.manualSelector: true` with a `selector` and pod labels of your own"),
    );
}

/// A Dividing Subscription's feed without a namespace that names workloads
/// of different replicas: Clusternet divides the replicas of whichever its
/// cache lists first for all of them (its FeedInventory takes the first
/// manifest), an answer no render can give. Refused (G0204).
fn unequal_division(
    inputs: &Inputs,
    subscription: &Subscription,
    feed: &Feed,
    found: &[&ObjectKey],
    at: crate::diag::Origin,
    diagnostics: &mut Diagnostics,
) {
    let replicas: BTreeSet<Option<u64>> = found
        .iter()
        .filter_map(|key| inputs.templates.iter().find(|t| &&t.key == key))
        .map(desired_replicas)
        .collect();
    if replicas.len() > 1 {
        diagnostics.push(
            Diagnostic::error(
                Code::InvalidPlacement,
                format!(
                    "{} divides `{feed}`, which names {} workloads of different replicas: Clusternet divides the replicas of whichever its cache lists first for all of them",
                    subscription.display(),
                    found.len()
                ),
            )
            .at(at)
            .help("give the feed a `namespace` (one feed per workload)"),
        );
    }
}

/// The templates a feed names ([`Feed::names`]).
fn resolve_feed<'i>(inputs: &'i Inputs, feed: &Feed) -> Vec<&'i ObjectKey> {
    inputs
        .templates
        .iter()
        .map(|t| &t.key)
        .filter(|k| feed.names(k))
        .collect()
}

/// The help of an unresolved feed: the template it most likely meant.
fn near_feed(inputs: &Inputs, feed: &Feed) -> String {
    let same_name: Vec<String> = inputs
        .templates
        .iter()
        .filter(|t| t.key.name == feed.name)
        .map(|t| format!("`{}` ({})", t.key, t.key.api_version))
        .collect();
    if same_name.is_empty() {
        "add the template to the repository, or fix the feed's apiVersion, kind, namespace and name; garrison stops rather than prune what the feed delivered".into()
    } else {
        format!(
            "templates with that name: {}; match the feed's apiVersion, kind and namespace to one",
            same_name.join(", ")
        )
    }
}

/// The Globalizations and Localizations of every template they name, each
/// list in the order Clusternet applies them: priority ascending, ties by
/// name (P13).
fn localizing(inputs: &Inputs) -> BTreeMap<ObjectKey, Localizing> {
    let mut by_template: BTreeMap<ObjectKey, Localizing> = BTreeMap::new();
    let globalizations = inputs
        .globalizations
        .iter()
        .map(|g| (g.spec.priority, &g.name, &g.spec.feed));
    for (i, key) in in_order(inputs, globalizations) {
        by_template.entry(key).or_default().globalizations.push(i);
    }
    let localizations = inputs
        .localizations
        .iter()
        .map(|l| (l.spec.priority, &l.name, &l.spec.feed));
    for (i, key) in in_order(inputs, localizations) {
        by_template.entry(key).or_default().localizations.push(i);
    }
    by_template
}

/// Overrides given as (priority, name, feed), by index, in Clusternet's
/// order, each with every template its feed names.
fn in_order<'i>(
    inputs: &Inputs,
    overrides: impl Iterator<Item = (Option<i32>, &'i String, &'i Feed)>,
) -> Vec<(usize, ObjectKey)> {
    let mut ordered: Vec<_> = overrides.enumerate().collect();
    ordered.sort_by_key(|(_, (priority, name, _))| (priority.unwrap_or(DEFAULT_PRIORITY), *name));
    ordered
        .into_iter()
        .flat_map(|(i, (_, _, feed))| {
            resolve_feed(inputs, feed)
                .into_iter()
                .map(move |key| (i, key.clone()))
        })
        .collect()
}

impl Subscription {
    /// The Subscription opts in to fort placement (SPEC §3), with the same
    /// annotation a PropagationPolicy takes.
    pub fn fort_enabled(&self) -> bool {
        self.annotations
            .get(crate::model::policy::FORT_ANNOTATION)
            .is_some_and(|v| v == crate::fort::FORT_ENABLED)
    }
}
