//! What Clusternet's Localizations and Globalizations do, checked before
//! anything is written (clusternet-semantics §5, §6 P8, P14, P15): each is
//! applied to the object of every cluster it reaches, so an override that
//! fails stops the render, and one Clusternet would drop (a JSONPatch path
//! the object lacks) or that the division overwrites is a warning at its
//! line. Overrides that reach nothing are warnings too.

use super::materialise::{localize, trim, Target};
use super::{App, Source};
use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::model::clusternet::Feed;
use crate::model::inputs::{Document, Inputs};
use crate::overrides::clusternet::Outcome;
use crate::overrides::OverridePolicyRef;
use std::collections::BTreeSet;

/// Apply every Localization and Globalization where it applies; report
/// failures, dropped patches and replica overrides of divided feeds.
pub(super) fn check(inputs: &Inputs, apps: &[App], diagnostics: &mut Diagnostics) {
    let mut reported: BTreeSet<(Origin, usize)> = BTreeSet::new();
    for app in apps.iter().filter(|a| a.clusternet()) {
        let localizing = &app.localizing;
        if localizing.globalizations.is_empty() && localizing.localizations.is_empty() {
            continue;
        }
        let Some(template) = inputs.template(&app.key) else {
            continue;
        };
        for assignment in app.binding.clusters.iter().filter(|a| !a.held) {
            let Some(cluster) = inputs.cluster(&assignment.cluster) else {
                continue;
            };
            let target = Target {
                app,
                template,
                cluster,
                replicas: assignment.replicas,
            };
            let mut value = super::feed::fed(template).clone();
            trim::hub_trims(&template.key, &mut value);
            match localize::chain(inputs, &target, &mut value) {
                Err(error) => {
                    diagnostics.push(error);
                    return;
                }
                Ok(done) => {
                    for localized in done {
                        let at = (localized.doc.origin(), localized.index);
                        if !reported.contains(&at)
                            && note(app, &cluster.name, &localized, diagnostics)
                        {
                            reported.insert(at);
                        }
                    }
                }
            }
        }
    }
}

/// The warning one applied override deserves, if any; whether it gave one.
fn note(
    app: &App,
    cluster: &str,
    localized: &localize::Localized<'_>,
    diagnostics: &mut Diagnostics,
) -> bool {
    let at = localized
        .doc
        .at(&["spec", "overrides", &localized.index.to_string()]);
    match &localized.outcome {
        Outcome::Dropped(why) => {
            diagnostics.push(
            Diagnostic::warning(
                Code::PatchDropped,
                format!(
                    "{} is dropped for `{}` on cluster `{cluster}`: {why}",
                    localized.by, app.key
                ),
            )
            .at(at)
            .help("Clusternet drops a JSONPatch whole when an operation's path is missing, and so does garrison; fix the path, or `add` under a parent that exists"),
        );
            true
        }
        Outcome::Applied(changes)
            if app.localizing.divided.contains(cluster)
                && changes.iter().any(|c| c.path == "/spec/replicas") =>
        {
            diagnostics.push(
                Diagnostic::warning(
                    Code::IgnoredField,
                    format!(
                        "{} sets `spec.replicas` of `{}`, which a Dividing Subscription divides: the division overwrites it",
                        localized.by, app.key
                    ),
                )
                .at(at)
                .help("change the desired count on the template, or the subscribers' weights; Clusternet's generated priority-1000 Localization wins too"),
            );
            true
        }
        _ => false,
    }
}

/// Localizations and Globalizations that reach nothing (P14): a
/// Localization in a namespace that holds no ManagedCluster, or one whose
/// feed no Subscription delivers; and ManagedClusters without a namespace
/// when the repository has Localizations. One whose feed is a HelmChart a
/// Subscription feeds does change what Clusternet delivers (the chart's
/// values), but the render skips the chart, and with it the override.
pub(super) fn unused(inputs: &Inputs, apps: &[App], diagnostics: &mut Diagnostics) {
    let delivered = |i: usize, of: fn(&App) -> &[usize]| {
        apps.iter()
            .any(|a| matches!(a.source, Source::Subscription { .. }) && of(a).contains(&i))
    };
    let skipped_chart = |feed: &Feed| {
        let key = feed.key();
        feed.is_helm_chart()
            && inputs
                .subscriptions
                .iter()
                .any(|s| s.spec.feeds.iter().any(|f| f.names(&key)))
    };
    for (i, l) in inputs.localizations.iter().enumerate() {
        let has_cluster = inputs
            .clusters
            .iter()
            .any(|c| c.managed && c.namespace.as_deref() == Some(l.namespace.as_str()));
        let what = format!("Localization `{}/{}`", l.namespace, l.name);
        let why = if !has_cluster {
            Some(format!(
                "no ManagedCluster lives in namespace `{}`, so it reaches no cluster",
                l.namespace
            ))
        } else if skipped_chart(&l.spec.feed) {
            diagnostics.push(chart_skipped(&what, &l.doc, &l.spec.feed));
            None
        } else if !delivered(i, |a| &a.localizing.localizations) {
            Some(format!("no Subscription delivers `{}`", l.spec.feed))
        } else {
            None
        };
        if let Some(why) = why {
            unused_warning(&what, &l.doc, &why, diagnostics);
        }
    }
    for (i, g) in inputs.globalizations.iter().enumerate() {
        if skipped_chart(&g.spec.feed) {
            let what = format!("Globalization `{}`", g.name);
            diagnostics.push(chart_skipped(&what, &g.doc, &g.spec.feed));
        } else if !delivered(i, |a| &a.localizing.globalizations) {
            let why = format!("no Subscription delivers `{}`", g.spec.feed);
            unused_warning(
                &format!("Globalization `{}`", g.name),
                &g.doc,
                &why,
                diagnostics,
            );
        }
    }
    karmada_overrides(inputs, apps, diagnostics);
    if inputs.localizations.is_empty() {
        return;
    }
    for cluster in inputs
        .clusters
        .iter()
        .filter(|c| c.managed && c.namespace.is_none())
    {
        diagnostics.push(
            Diagnostic::warning(
                Code::MissingNamespace,
                format!(
                    "ManagedCluster `{}` has no namespace, so no Localization can reach it",
                    cluster.name
                ),
            )
            .at(cluster.origin)
            .help("give it its dedicated namespace, as Clusternet's hub does (`clusternet-xxxxx`)"),
        );
    }
}

/// An override of a HelmChart a Subscription feeds: skipped with the chart.
fn chart_skipped(what: &str, doc: &Document, feed: &Feed) -> Diagnostic {
    Diagnostic::warning(
        Code::UnsupportedField,
        format!("{what} is skipped with the HelmChart feed it changes, `{feed}`: an offline render cannot fetch or render charts"),
    )
    .at(doc.at(&["spec", "feed"]))
    .help("render the chart into manifests in the repository, feed those, and point the override at them")
}

fn unused_warning(what: &str, doc: &Document, why: &str, diagnostics: &mut Diagnostics) {
    diagnostics.push(
        Diagnostic::warning(
            Code::PolicyMatchesNothing,
            format!("{what} changes nothing: {why}"),
        )
        .at(doc.at(&["spec", "feed"]))
        .help("check its namespace (a cluster's dedicated namespace) and its feed's apiVersion, kind, namespace and name"),
    );
}

/// A Karmada override policy whose selectors name a template a
/// Subscription feeds: Karmada's overrides only change what Karmada
/// propagates, so it changes nothing there, and says so.
fn karmada_overrides(inputs: &Inputs, apps: &[App], diagnostics: &mut Diagnostics) {
    let refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(OverridePolicyRef::from)
        .collect();
    for app in apps.iter().filter(|a| a.clusternet()) {
        let Some(template) = inputs.template(&app.key) else {
            continue;
        };
        let view = template.view();
        for policy in crate::overrides::applicable(&refs, &view) {
            if policy.spec.resource_selectors.is_empty() {
                continue;
            }
            let Some(doc) = inputs
                .override_policies
                .iter()
                .find(|p| p.name == policy.name && p.namespace.as_deref() == policy.namespace)
            else {
                continue;
            };
            diagnostics.push(
                Diagnostic::warning(
                    Code::IgnoredField,
                    format!("{} selects `{}`, which a Subscription feeds: Karmada's overrides do not change Clusternet deliveries", doc.display(), app.key),
                )
                .at(doc.doc.at(&["spec", "resourceSelectors"]))
                .help("write the change as a Localization or Globalization of the feed, or narrow the policy's resource selectors"),
            );
        }
    }
}
