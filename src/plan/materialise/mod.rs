//! Making one application's object for one cluster: the template, changed
//! by named steps in Karmada's order. Each step is a module of its own and
//! one line of [`STEPS`]; a new step is a new file and one line there.
//!
//! Nothing here decides: the plan says which application goes to which
//! cluster with how many replicas, and what selects it; making the object
//! only applies that, so the same plan always makes the same bytes.

mod annotate;
mod claim;
mod divided;
mod hook;
pub(crate) mod localize;
mod overrides;
mod prune;
mod replicas;
mod revised;
mod slim;
#[cfg(test)]
mod tests;
pub(crate) mod trim;

use super::{App, Plan};
use crate::diag::{Diagnostic, Diagnostics};
use crate::fort::FORT_LABEL;
use crate::interpret::{InterpretError, Interpreter};
use crate::model::cluster::Cluster;
use crate::model::inputs::{Inputs, Template};
use crate::model::selector::Labels;
use crate::overrides::{Applied, OverridePolicyRef};
use serde_json::Value;

/// One step of making an object: it reads what the object is made for and
/// changes the object in place.
type Step = fn(&Materialiser<'_>, &Target<'_>, &mut Made) -> Result<(), Diagnostic>;

/// The steps, in Karmada's order: the claim (the detector writes it on the
/// template, before the binding controller starts), revise replicas,
/// apply overrides, run the revise-object hook, prune what a member
/// cluster assigns (Karmada prunes when it writes the Work, after the
/// overrides), check what scripts returned, drop what the claim made and
/// nothing filled, write the bookkeeping annotations (which list what the
/// stored template carries), leave out the defaults a member cluster sets
/// back ([`Materialiser::finish`], after these).
const STEPS: &[Step] = &[
    claim::step,
    replicas::step,
    overrides::step,
    hook::step,
    prune::step,
    revised::step,
    claim::settle,
    annotate::step,
];

/// A Subscription's feed (Clusternet, clusternet-semantics §5, §6): the
/// hub's trims, the Localizations and Globalizations, the division written
/// last, then garrison's hook, the bookkeeping and the defaults left out
/// as for every application ([`Materialiser::finish`], after these).
const CLUSTERNET_STEPS: &[Step] = &[
    trim::hub,
    localize::step,
    divided::step,
    hook::step,
    trim::delivered,
    revised::step,
    annotate::step,
];

// SOPS signs every value of an encrypted document (its MAC), so such an
// object passes through without a single added label or annotation.
use crate::model::meta::sops_encrypted;

/// The labels a cluster shows while `app` is made for it: its own, plus
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

/// What making an object reads besides its target: the inputs, their
/// resource interpreter, and their override policies as the engine takes
/// them.
pub struct Materialiser<'a> {
    inputs: &'a Inputs,
    interpreter: Interpreter,
    override_policies: Vec<OverridePolicyRef<'a>>,
}

/// One object to make: an application's template, for one cluster, with
/// the replicas of the cluster's share.
pub struct Target<'a> {
    pub app: &'a App,
    pub template: &'a Template,
    pub cluster: &'a Cluster,
    pub replicas: u64,
}

impl Target<'_> {
    /// The template as the control plane keeps it, which making the object
    /// starts from: a Karmada API server's stored template, or a Clusternet
    /// hub's feed.
    fn stored(&self) -> &Value {
        if self.app.clusternet() {
            crate::plan::feed::fed(self.template)
        } else {
            &self.template.value
        }
    }
}

/// One object, made, with what each override did to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Made {
    pub value: Value,
    pub applied: Applied,
}

impl<'a> Materialiser<'a> {
    /// For plans made from `inputs`. Planning has reported every script
    /// that does not load; such a plan is never made, so what checking
    /// the scripts again says is not repeated.
    pub fn new(inputs: &'a Inputs) -> Materialiser<'a> {
        let interpreter = Interpreter::new(&inputs.customizations, &mut Diagnostics::default());
        Materialiser {
            inputs,
            interpreter,
            override_policies: inputs
                .override_policies
                .iter()
                .map(OverridePolicyRef::from)
                .collect(),
        }
    }

    /// The object of `target`, step by step; a step that fails is the
    /// diagnostic, and nothing is made.
    pub fn object(&self, target: &Target<'_>) -> Result<Made, Diagnostic> {
        let mut made = self.unfinished(target)?;
        made.value = self.finish(target, &made);
        Ok(made)
    }

    /// The object of `target` before its last step: two clusters whose
    /// objects are the same here get the same object
    /// ([`Materialiser::finish`]).
    pub fn unfinished(&self, target: &Target<'_>) -> Result<Made, Diagnostic> {
        let mut made = Made {
            value: target.stored().clone(),
            applied: Applied::default(),
        };
        let steps = if target.app.clusternet() {
            CLUSTERNET_STEPS
        } else {
            STEPS
        };
        for step in steps {
            step(self, target, &mut made)?;
        }
        Ok(made)
    }

    /// The last step of both dialects, leaving out the defaults a member
    /// sets back, on an [`Materialiser::unfinished`] object: the object
    /// garrison writes. Apart from the other steps, so that what comes
    /// before it can be compared between clusters, and its object kept.
    pub fn finish(&self, target: &Target<'_>, made: &Made) -> Value {
        slim::finished(target, &made.value)
    }

    /// The override policies of the target's application, in order.
    fn overrides_of(&self, app: &App) -> Vec<&OverridePolicyRef<'a>> {
        app.override_policies
            .iter()
            .filter_map(|&i| self.override_policies.get(i))
            .collect()
    }

    /// The interpreter's fault as a diagnostic about the target.
    fn fault(target: &Target<'_>, error: InterpretError) -> Diagnostic {
        error.diagnostic(&target.template.key, Some(&target.cluster.name))
    }

    /// The application opts in to fort placement: its policy or one of its
    /// Subscriptions carries the annotation.
    fn fort_enabled(&self, app: &App) -> bool {
        use crate::fort::FORT_ENABLED;
        use crate::model::policy::FORT_ANNOTATION;
        if let super::Source::Subscription { subscriptions } = &app.source {
            return self
                .inputs
                .subscriptions
                .iter()
                .any(|s| subscriptions.contains(&s.display()) && s.fort_enabled());
        }
        self.policy_annotations(app)
            .and_then(|a| a.get(FORT_ANNOTATION))
            .is_some_and(|v| v == FORT_ENABLED)
    }

    /// The claiming policy's annotations, if a policy claims the application.
    fn policy_annotations(
        &self,
        app: &App,
    ) -> Option<&'a std::collections::BTreeMap<String, String>> {
        super::policy_of(self.inputs, app).map(|p| &p.annotations)
    }
}

impl Plan {
    /// The object `app` (an index into [`Plan::apps`]) gets on `cluster`,
    /// with `replicas`; `None` when the application has no template.
    pub fn materialise(
        &self,
        materialiser: &Materialiser<'_>,
        app: usize,
        cluster: &Cluster,
        replicas: u64,
    ) -> Option<Result<Made, Diagnostic>> {
        let target = self.target(materialiser, app, cluster, replicas)?;
        Some(materialiser.object(&target))
    }

    /// What `app` (an index into [`Plan::apps`]) is made from for
    /// `cluster`; `None` when the application has no template.
    pub fn target<'p>(
        &'p self,
        materialiser: &Materialiser<'p>,
        app: usize,
        cluster: &'p Cluster,
        replicas: u64,
    ) -> Option<Target<'p>> {
        let app = self.apps.get(app)?;
        let template = materialiser.inputs.template(&app.key)?;
        Some(Target {
            app,
            template,
            cluster,
            replicas,
        })
    }
}
