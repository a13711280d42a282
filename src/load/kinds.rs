//! The kinds garrison reads, by API group and kind: which role a document
//! plays (a template, a policy of either dialect, a cluster, a binding…),
//! and the help for a kind of a known group that garrison does not know.
//! A new kind is a line of [`KINDS`] (and its [`Role`]).

use super::karmada_kind::{self, KarmadaKind};
use crate::model::domain::Holder;
use crate::model::meta::group_of;

pub(super) const POLICY_GROUP: &str = "policy.karmada.io";
pub(super) const WORK_GROUP: &str = "work.karmada.io";
pub(super) const CONFIG_GROUP: &str = "config.karmada.io";
pub(super) const CLUSTER_GROUP: &str = "cluster.karmada.io";
pub(super) const AUTOSCALING_GROUP: &str = "autoscaling.karmada.io";
pub(super) const CLUSTERNET_GROUP: &str = "clusters.clusternet.io";
pub(super) const CLUSTERNET_APPS_GROUP: &str = "apps.clusternet.io";
/// Why Clusternet's hub-generated kinds are not inputs.
pub(super) const HUB_STATE: &str = "Clusternet's hub generates it from Subscriptions; a repository declares Subscriptions, Localizations and Globalizations";

/// The role of a document, decided by its apiVersion and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    PropagationPolicy {
        cluster_scoped: bool,
    },
    OverridePolicy {
        cluster_scoped: bool,
    },
    Cluster,
    ManagedCluster,
    Binding {
        cluster_scoped: bool,
    },
    /// A ResourceInterpreterCustomization (Lua interpreters, karmada-semantics §f).
    Customization,
    /// A ClusterTaintPolicy: taints for clusters by their conditions.
    TaintPolicy,
    /// A FederatedHPA: bounds on its target's replicas.
    Autoscaler,
    /// Clusternet's Subscription, Localization and Globalization.
    Subscription,
    Localization,
    Globalization,
    /// Known to Clusternet but meaningless offline: warned about, not propagated.
    Unsupported(&'static str),
    /// One of Karmada's own kinds that a render does not deliver.
    Karmada(&'static KarmadaKind),
    /// kustomize's own files are not Kubernetes objects.
    Kustomize,
    Template,
}

impl Role {
    /// Which documents of garrison's own domain (`garrison.dev/` keys) it is.
    pub(super) fn holder(self) -> Option<Holder> {
        Some(match self {
            Role::PropagationPolicy { .. } => Holder::PropagationPolicy,
            Role::OverridePolicy { .. } => Holder::OverridePolicy,
            Role::Cluster => Holder::Cluster,
            Role::ManagedCluster => Holder::ManagedCluster,
            Role::Binding { .. } => Holder::Binding,
            Role::Customization => Holder::ResourceInterpreterCustomization,
            Role::TaintPolicy => Holder::ClusterTaintPolicy,
            Role::Autoscaler => Holder::FederatedHpa,
            Role::Subscription => Holder::Subscription,
            Role::Localization => Holder::Localization,
            Role::Globalization => Holder::Globalization,
            Role::Template => Holder::Template,
            Role::Unsupported(_) | Role::Karmada(_) | Role::Kustomize => return None,
        })
    }
}

/// Every kind garrison reads as an input, by API group. A new kind, or a
/// new dialect's kinds, is a line here; Karmada's kinds that are not inputs
/// are [`karmada_kind`]'s. Any other kind of these groups is refused
/// (G0108), so a misspelt policy is never taken for a template.
pub(super) const KINDS: &[(&str, &str, Role)] = &[
    (POLICY_GROUP, "PropagationPolicy", Role::PropagationPolicy { cluster_scoped: false }),
    (POLICY_GROUP, "ClusterPropagationPolicy", Role::PropagationPolicy { cluster_scoped: true }),
    (POLICY_GROUP, "OverridePolicy", Role::OverridePolicy { cluster_scoped: false }),
    (POLICY_GROUP, "ClusterOverridePolicy", Role::OverridePolicy { cluster_scoped: true }),
    (POLICY_GROUP, "ClusterTaintPolicy", Role::TaintPolicy),
    (CLUSTER_GROUP, "Cluster", Role::Cluster),
    (CLUSTERNET_GROUP, "ManagedCluster", Role::ManagedCluster),
    (WORK_GROUP, "ResourceBinding", Role::Binding { cluster_scoped: false }),
    (WORK_GROUP, "ClusterResourceBinding", Role::Binding { cluster_scoped: true }),
    (CONFIG_GROUP, "ResourceInterpreterCustomization", Role::Customization),
    (AUTOSCALING_GROUP, "FederatedHPA", Role::Autoscaler),
    (CLUSTERNET_APPS_GROUP, "Subscription", Role::Subscription),
    (CLUSTERNET_APPS_GROUP, "Localization", Role::Localization),
    (CLUSTERNET_APPS_GROUP, "Globalization", Role::Globalization),
    (CLUSTERNET_APPS_GROUP, "Base", Role::Unsupported(HUB_STATE)),
    (CLUSTERNET_APPS_GROUP, "Description", Role::Unsupported(HUB_STATE)),
    (CLUSTERNET_APPS_GROUP, "FeedInventory", Role::Unsupported(HUB_STATE)),
    (CLUSTERNET_APPS_GROUP, "Manifest", Role::Unsupported(HUB_STATE)),
    (
        CLUSTERNET_APPS_GROUP,
        "HelmChart",
        Role::Unsupported("an offline render cannot fetch or render charts; render the chart into manifests in the repository and feed those"),
    ),
];

/// The role of a document of `kind` in `api_version`'s group; `Err` for an
/// unknown kind of a group [`KINDS`] lists.
pub(super) fn role(api_version: &str, kind: &str) -> Result<Role, ()> {
    let group = group_of(api_version);
    if let Some((_, _, role)) = KINDS.iter().find(|(g, k, _)| *g == group && *k == kind) {
        return Ok(*role);
    }
    if let Some(own) = karmada_kind::find(group, kind) {
        return Ok(Role::Karmada(own));
    }
    if KINDS.iter().any(|(g, _, _)| *g == group) || karmada_kind::is_karmada_group(group) {
        return Err(());
    }
    Ok(if group == "kustomize.config.k8s.io" {
        Role::Kustomize
    } else {
        Role::Template
    })
}

/// The help of G0108: the closest kind of the group, or all of them.
pub(super) fn unknown_kind_help(api_version: &str, kind: &str) -> String {
    let group = group_of(api_version);
    let kinds: Vec<&str> = KINDS
        .iter()
        .filter(|(g, _, _)| *g == group)
        .map(|(_, kind, _)| *kind)
        .chain(karmada_kind::kinds_of(group))
        .collect();
    match crate::diag::closest(kind, kinds.iter().copied()) {
        Some(near) => format!("did you mean `{near}`?"),
        None => format!(
            "the kinds of `{group}` are {}",
            kinds
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
