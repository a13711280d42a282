//! The vanish guard (SPEC §10, "an application does not vanish by
//! accident"): an application the previous render delivered, whose
//! template is still in the repository, that this render delivers to no
//! cluster.
//!
//! Removing an application takes deleting its template or what claimed it
//! (its propagation policy, pinning binding or Subscriptions). When both
//! are still there and the application reaches no cluster, something
//! between them broke: a misspelt label the policy selects on, a selector
//! edited by mistake, a template moved into a namespace Karmada never
//! propagates. Argo CD and Flux would delete it from every cluster, so a
//! render refuses it (G0604, listing each such application at its
//! template), unless `--allow-vanish` or `allowVanish` in garrison.yaml
//! says it is meant; `diff` and `check` warn.
//!
//! An application is the same one whatever its apiVersion (kind, namespace
//! and name), so a template moved to another version or group that is
//! still delivered does not vanish. Not vanishing either: an application
//! whose previous clusters have left the fleet (the clusters were removed),
//! or that a paused cluster keeps (its output is frozen), or held for its
//! policy's suspension (a held cluster stays in its binding). Applications
//! that only follow others (dependencies, auto-propagated Namespaces) go
//! with what they follow, which is judged itself.
//! Pure: the plan, the inputs and the previous bindings come in as data.

use crate::diag::{Code, Diagnostic, Severity};
use crate::model::inputs::{Inputs, Template};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::model::record::BindingRecord;
use crate::plan::Plan;
use std::collections::BTreeSet;

/// How many of a vanishing application's clusters the message names.
const LISTED: usize = 8;

/// An application's identity for the guard: kind, namespace, name.
type Identity<'a> = (&'a str, Option<&'a str>, &'a str);

fn identity(key: &ObjectKey) -> Identity<'_> {
    (&key.kind, key.namespace.as_deref(), &key.name)
}

/// One application that vanishes: the previous render's key and record,
/// its template now, and the clusters of the fleet it was on.
#[derive(Debug)]
pub struct Vanishing<'a> {
    pub previous: &'a ObjectKey,
    pub template: &'a Template,
    pub clusters: Vec<&'a str>,
    /// What still claims it.
    pub claimer: String,
}

/// Every application of `previous` that `plan` makes vanish, in key order,
/// those `garrison.yaml` lets vanish (`allowVanish`) left out.
pub fn vanishing<'a>(
    inputs: &'a Inputs,
    plan: &Plan,
    previous: &'a PreviousRender,
) -> Vec<Vanishing<'a>> {
    let reaching: BTreeSet<Identity<'_>> = plan
        .apps
        .iter()
        .filter(|app| !app.binding.clusters.is_empty())
        .map(|app| identity(&app.key))
        .collect();
    let mut found = Vec::new();
    for (key, record) in &previous.bindings {
        if reaching.contains(&identity(key)) {
            continue;
        }
        let clusters: Vec<&str> = record
            .clusters
            .iter()
            .map(|(cluster, _)| cluster.as_str())
            .filter(|name| inputs.cluster(name).is_some())
            .collect();
        let frozen = clusters
            .iter()
            .any(|name| inputs.cluster(name).is_some_and(|c| c.paused));
        if clusters.is_empty() || frozen {
            continue;
        }
        let Some(claimer) = claimer(inputs, key, record) else {
            continue;
        };
        let Some(template) = inputs
            .templates
            .iter()
            .find(|t| identity(&t.key) == identity(key))
        else {
            continue;
        };
        if inputs
            .config
            .allow_vanish
            .iter()
            .any(|allowed| *allowed == template.key.to_string())
        {
            continue;
        }
        found.push(Vanishing {
            previous: key,
            template,
            clusters,
            claimer,
        });
    }
    found
}

/// What that claimed the application in the previous render is still in
/// the repository: its policy, its pinning binding or a Subscription.
/// `None` when nothing is (deleting it removes the application, as meant)
/// or when the application claimed by nothing of its own.
fn claimer(inputs: &Inputs, key: &ObjectKey, record: &BindingRecord) -> Option<String> {
    if let Some(policy) = &record.policy {
        if let Some(found) = inputs
            .propagation_policies
            .iter()
            .find(|p| p.name == policy.name && p.namespace == policy.namespace)
        {
            return Some(found.display());
        }
    }
    if record.pinned {
        let pins = inputs.bindings.iter().find(|pinned| {
            let resource = &pinned.binding.spec.resource;
            (
                resource.kind.as_str(),
                resource.namespace.as_deref().or(key.namespace.as_deref()),
                resource.name.as_str(),
            ) == identity(key)
        });
        if let Some(pinned) = pins {
            let binding = &pinned.binding.metadata;
            return Some(match &binding.namespace {
                Some(ns) => format!("ResourceBinding/{ns}/{}", binding.name),
                None => format!("ClusterResourceBinding/{}", binding.name),
            });
        }
    }
    inputs
        .subscriptions
        .iter()
        .map(|s| s.display())
        .find(|shown| record.subscriptions.contains(shown))
}

impl Vanishing<'_> {
    /// G0604 of `severity` at the template, saying why it reaches no cluster.
    pub fn diagnostic(&self, plan: &Plan, severity: Severity) -> Diagnostic {
        let key = &self.template.key;
        let why = if plan.app(key).is_some() {
            format!("{} claims it and selects no cluster for it", self.claimer)
        } else if plan.unclaimed.contains(key) {
            format!(
                "nothing claims it now, though {} is still there",
                self.claimer
            )
        } else {
            "it is not rendered (the warning at its line says why)".to_string()
        };
        let moved = if self.previous.api_version == key.api_version {
            String::new()
        } else {
            format!(
                " (it was `{}`, it is `{}` now)",
                self.previous.api_version, key.api_version
            )
        };
        let mut clusters: Vec<String> = self
            .clusters
            .iter()
            .take(LISTED)
            .map(|c| format!("`{c}`"))
            .collect();
        if self.clusters.len() > LISTED {
            clusters.push(format!("and {} more", self.clusters.len() - LISTED));
        }
        let message = format!(
            "`{key}` would vanish: the previous render delivered it to {} cluster(s) ({}), this one to none: {why}{moved}",
            self.clusters.len(),
            clusters.join(", ")
        );
        let diagnostic = match severity {
            Severity::Error => Diagnostic::error(Code::ApplicationVanishes, message),
            Severity::Warning => Diagnostic::warning(Code::ApplicationVanishes, message),
        };
        diagnostic.at(self.template.origin).help(format!(
            "if it is a mistake, check the template's apiVersion, kind, namespace and labels against the `resourceSelectors` and placement of {}; if it is meant to go, delete the template or {}, or render once with `--allow-vanish` (or list `{key}` under `allowVanish` in garrison.yaml)",
            self.claimer, self.claimer
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, Sources};
    use crate::load::yaml::{parse_stream, Limits};

    const FLEET: &str = "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: a}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: b}\n";
    const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors:\n  - {apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {app: web}}}\n";
    const TEMPLATE: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: shop, labels: {app: web}}\n";

    fn inputs(text: &str) -> Inputs {
        let mut sources = Sources::default();
        let file = sources.add("all.yaml".into(), text.into());
        let nodes = parse_stream(text, &Limits::default()).unwrap_or_else(|e| panic!("{e:?}"));
        let mut diagnostics = Diagnostics::default();
        let mut inputs = crate::load::classify::classify(
            nodes.into_iter().map(|n| (file, n)).collect(),
            &sources,
            &mut diagnostics,
        );
        assert!(!diagnostics.has_errors(), "{diagnostics:?}");
        inputs.sources = sources;
        inputs
    }

    /// The previous render of `before`: its bindings.
    fn rendered(before: &str) -> PreviousRender {
        let before = inputs(before);
        let plan = crate::plan::plan(&before, &PreviousRender::default())
            .unwrap_or_else(|e| panic!("{e:?}"));
        PreviousRender {
            bindings: plan
                .apps
                .iter()
                .map(|app| (app.key.clone(), app.record(None)))
                .collect(),
            ..PreviousRender::default()
        }
    }

    /// What vanishes when `now` is planned against a render of `before`.
    fn vanished(before: &str, now: &str) -> Vec<String> {
        let previous = rendered(before);
        let now = inputs(now);
        let plan = crate::plan::plan(&now, &previous).unwrap_or_else(|e| panic!("{e:?}"));
        vanishing(&now, &plan, &previous)
            .iter()
            .map(|v| {
                format!(
                    "{} on {} ({}): {}",
                    v.template.key,
                    v.clusters.join(","),
                    v.claimer,
                    v.diagnostic(&plan, Severity::Error).message
                )
            })
            .collect()
    }

    fn fleet(parts: &[&str]) -> String {
        parts.join("---\n")
    }

    #[test]
    fn a_template_its_policy_no_longer_claims_or_renders_vanishes() {
        let before = fleet(&[FLEET, POLICY, TEMPLATE]);
        let typo = fleet(&[FLEET, POLICY, &TEMPLATE.replace("app: web", "app: wbe")]);
        insta::assert_snapshot!(vanished(&before, &typo).join("\n"), @"ConfigMap/shop/web on a,b (PropagationPolicy/shop/web): `ConfigMap/shop/web` would vanish: the previous render delivered it to 2 cluster(s) (`a`, `b`), this one to none: nothing claims it now, though PropagationPolicy/shop/web is still there");
        let claimed = TEMPLATE.replace(
            "labels: {app: web}",
            "labels: {app: web, resourcetemplate.karmada.io/claimed-by: other}",
        );
        insta::assert_snapshot!(vanished(&before, &fleet(&[FLEET, POLICY, &claimed])).join("\n"), @"ConfigMap/shop/web on a,b (PropagationPolicy/shop/web): `ConfigMap/shop/web` would vanish: the previous render delivered it to 2 cluster(s) (`a`, `b`), this one to none: it is not rendered (the warning at its line says why)");
    }

    #[test]
    fn deleting_the_template_or_its_policy_or_the_clusters_is_meant() {
        let before = fleet(&[FLEET, POLICY, TEMPLATE]);
        let none: Vec<String> = Vec::new();
        assert_eq!(
            vanished(&before, &fleet(&[FLEET, POLICY])),
            none,
            "template deleted"
        );
        assert_eq!(
            vanished(&before, &fleet(&[FLEET, TEMPLATE])),
            none,
            "policy deleted"
        );
        let other_fleet = FLEET
            .replace("name: a}", "name: c}")
            .replace("name: b}", "name: d}");
        let typo = TEMPLATE.replace("app: web", "app: wbe");
        assert_eq!(
            vanished(&before, &fleet(&[&other_fleet, POLICY, &typo])),
            none,
            "its clusters left the fleet"
        );
        assert_eq!(vanished(&before, &before), none, "nothing changed");
    }

    #[test]
    fn a_paused_cluster_or_a_suspended_policy_keeps_it() {
        let before = fleet(&[FLEET, POLICY, TEMPLATE]);
        let paused = FLEET.replace(
            "metadata: {name: a}",
            "metadata: {name: a, annotations: {garrison.dev/sync-paused: \"true\"}}",
        );
        let typo = TEMPLATE.replace("app: web", "app: wbe");
        let none: Vec<String> = Vec::new();
        assert_eq!(vanished(&before, &fleet(&[&paused, POLICY, &typo])), none);
        let suspended = format!(
            "{POLICY}  placement:\n    clusterAffinity: {{clusterNames: [b]}}\n  suspension: {{dispatching: true}}\n"
        );
        assert_eq!(
            vanished(&before, &fleet(&[FLEET, &suspended, TEMPLATE])),
            none,
            "held for its policy's suspension"
        );
    }

    #[test]
    fn garrison_yaml_lets_a_named_application_vanish() {
        let previous = rendered(&fleet(&[FLEET, POLICY, TEMPLATE]));
        let typo = fleet(&[FLEET, POLICY, &TEMPLATE.replace("app: web", "app: wbe")]);
        let mut now = inputs(&typo);
        let plan = crate::plan::plan(&now, &previous).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(vanishing(&now, &plan, &previous).len(), 1);
        now.config.allow_vanish = vec!["ConfigMap/shop/web".into()];
        assert!(vanishing(&now, &plan, &previous).is_empty());
    }
}
