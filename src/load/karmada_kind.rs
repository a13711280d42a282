//! Karmada's own kinds that are not inputs of a render: what a Karmada
//! control plane does with each, and what the render does instead.
//!
//! Karmada's detector never propagates the kinds of its own API groups
//! (`pkg/util/apigroup.go`, `NewSkippedResourceConfig`: `cluster`,
//! `policy`, `work`, `config`, `networking`, `autoscaling`, `remedy` and
//! `apps.karmada.io`), so none of them is ever a resource template: its
//! controllers act on them. The kinds garrison reads (policies, clusters,
//! bindings, customizations, taint policies, FederatedHPAs) are lines of
//! `classify`'s table; every other kind of those groups is here, warned
//! about with its own message (G0105) and never delivered. A kind of these
//! groups in neither table is refused (G0108), as a misspelt policy must
//! never become a template.
//!
//! `search.karmada.io` is served by karmada-search and is not in Karmada's
//! skipped list, but no member cluster serves its ResourceRegistry, which
//! only configures what karmada-search caches: it is read here too.

use crate::diag::{Code, Diagnostic};
use crate::model::inputs::Document;

/// One Karmada kind a render does not deliver.
#[derive(Debug, PartialEq, Eq)]
pub struct KarmadaKind {
    pub group: &'static str,
    pub kind: &'static str,
    /// What a Karmada control plane does with an object of the kind.
    does: &'static str,
    /// What the render does instead.
    instead: &'static str,
}

/// Karmada's API groups (`pkg/apis`), the detector's skipped ones and
/// `search.karmada.io`.
const GROUPS: &[&str] = &[
    "apps.karmada.io",
    "autoscaling.karmada.io",
    "cluster.karmada.io",
    "config.karmada.io",
    "networking.karmada.io",
    "policy.karmada.io",
    "remedy.karmada.io",
    "search.karmada.io",
    "work.karmada.io",
];

/// Every kind of Karmada's groups that is not an input, as Karmada v1.18.2
/// serves them, with what its controllers do with it.
const KINDS: &[KarmadaKind] = &[
    KarmadaKind {
        group: "apps.karmada.io",
        kind: "WorkloadRebalancer",
        does: "Karmada reschedules the workloads it lists once, from scratch, when it is created",
        instead: "a render has no moment to do it once: each workload keeps the schedule the previous render recorded, until its placement or replicas change",
    },
    KarmadaKind {
        group: "autoscaling.karmada.io",
        kind: "CronFederatedHPA",
        does: "Karmada sets its target's replicas (or a FederatedHPA's bounds) at the times its cron schedules name",
        instead: "a render never depends on the clock, so it never acts on it: the target keeps what the repository gives it",
    },
    KarmadaKind {
        group: "config.karmada.io",
        kind: "ResourceInterpreterWebhookConfiguration",
        does: "Karmada calls the webhook it names to interpret the kinds it lists",
        instead: "a webhook needs a running server: the render interprets those kinds without it; declare a ResourceInterpreterCustomization instead",
    },
    KarmadaKind {
        group: "networking.karmada.io",
        kind: "MultiClusterIngress",
        does: "a multi-cluster ingress controller on the Karmada control plane routes its traffic to the member clusters' live endpoints",
        instead: "it changes nothing a member cluster receives, and the render does not deliver it",
    },
    KarmadaKind {
        group: "networking.karmada.io",
        kind: "MultiClusterService",
        does: "Karmada's multi-cluster service controllers copy EndpointSlices between its provider and consumer clusters from their live endpoints and, for `CrossCluster`, take the Service of the same name from its propagation policy and send it to those clusters",
        instead: "the render does neither: the Service goes where its propagation policy sends it",
    },
    KarmadaKind {
        group: "policy.karmada.io",
        kind: "FederatedResourceQuota",
        does: "Karmada creates a ResourceQuota of its namespace and name, with the `hard` limits of each of its `staticAssignments`, in the cluster the assignment names, and tracks `overall` on the control plane",
        instead: "the render delivers no ResourceQuota: write the ResourceQuota as a template, with a PropagationPolicy to those clusters and an OverridePolicy for each cluster's limits",
    },
    KarmadaKind {
        group: "remedy.karmada.io",
        kind: "Remedy",
        does: "Karmada records its actions (such as `TrafficControl`) in the status of the clusters whose live conditions match, for traffic controllers to read",
        instead: "it changes nothing a member cluster receives",
    },
    KarmadaKind {
        group: "search.karmada.io",
        kind: "ResourceRegistry",
        does: "karmada-search caches the resources it names from the member clusters, for search and proxy requests",
        instead: "it changes nothing a member cluster receives, and the render does not deliver it",
    },
    KarmadaKind {
        group: "work.karmada.io",
        kind: "Work",
        does: "a Work is what Karmada's binding controller writes for one cluster and its execution controller applies there",
        instead: "garrison writes Works with `--format work`; it does not read them",
    },
];

/// The kind `kind` of `group`, when it is one of Karmada's that a render
/// does not deliver.
pub fn find(group: &str, kind: &str) -> Option<&'static KarmadaKind> {
    KINDS.iter().find(|k| k.group == group && k.kind == kind)
}

/// Whether `group` is one of Karmada's API groups.
pub fn is_karmada_group(group: &str) -> bool {
    GROUPS.contains(&group)
}

/// The kinds of `group` this table lists, for a "did you mean".
pub fn kinds_of(group: &str) -> impl Iterator<Item = &'static str> + '_ {
    KINDS
        .iter()
        .filter(move |k| k.group == group)
        .map(|k| k.kind)
}

impl KarmadaKind {
    /// The warning for an object of the kind, `name` as `namespace/name`
    /// when namespaced, at its `kind`.
    pub fn warning(&self, name: &str, doc: &Document) -> Diagnostic {
        Diagnostic::warning(
            Code::UnsupportedField,
            format!(
                "{} `{name}` is not delivered: {}; {}",
                self.kind, self.does, self.instead
            ),
        )
        .at(doc.at(&["kind"]))
        .help("Karmada's detector never propagates its own kinds; to render under `--strict`, list the file in garrison.yaml's `exclude`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_a_group_are_listed_for_a_suggestion() {
        assert_eq!(
            kinds_of("networking.karmada.io").collect::<Vec<_>>(),
            ["MultiClusterIngress", "MultiClusterService"]
        );
        assert!(!is_karmada_group("apps"));
    }
}
