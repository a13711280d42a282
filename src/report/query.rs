//! Which application `explain` is asked about, in the forms kubectl users
//! type: `Deployment/shop/web`, `deploy/web -n shop`, `deployment web
//! --namespace shop`, `Deployment.apps/shop/web`, `deployments.v1.apps/web`;
//! a kind by its name, plural or kubectl short name, in any case. When
//! nothing matches, [`Query::suggest`] names the applications most likely
//! meant.

use crate::model::meta::ObjectKey;
use crate::plan::{App, Plan};
use std::fmt;

/// kubectl's short names of built-in kinds (`kubectl api-resources`), and
/// of the Karmada kinds a repository holds, lower-cased.
const SHORT_NAMES: &[(&str, &str)] = &[
    ("cm", "configmap"),
    ("cs", "componentstatus"),
    ("ep", "endpoints"),
    ("ev", "event"),
    ("limits", "limitrange"),
    ("ns", "namespace"),
    ("no", "node"),
    ("pvc", "persistentvolumeclaim"),
    ("pv", "persistentvolume"),
    ("po", "pod"),
    ("rc", "replicationcontroller"),
    ("quota", "resourcequota"),
    ("sa", "serviceaccount"),
    ("svc", "service"),
    ("crd", "customresourcedefinition"),
    ("crds", "customresourcedefinition"),
    ("ds", "daemonset"),
    ("deploy", "deployment"),
    ("rs", "replicaset"),
    ("sts", "statefulset"),
    ("hpa", "horizontalpodautoscaler"),
    ("cj", "cronjob"),
    ("csr", "certificatesigningrequest"),
    ("ing", "ingress"),
    ("netpol", "networkpolicy"),
    ("pdb", "poddisruptionbudget"),
    ("pc", "priorityclass"),
    ("sc", "storageclass"),
];

/// The namespace kubectl reads when none is given.
const DEFAULT_NAMESPACE: &str = "default";

/// How many applications a "did you mean" names at most.
const SUGGESTED: usize = 3;

/// An application as the user named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The kind as typed, lower-cased, without its group: `deploy`.
    kind: String,
    /// The application as typed, for messages: `deploy/web`, `deploy web`.
    typed: String,
    /// The namespace came from `--namespace`, not from the object.
    namespace_flag: bool,
    /// What followed the kind after a dot, as typed: `apps`, `v1.apps`.
    group: Option<String>,
    /// The namespace given, in the object or with `--namespace`.
    namespace: Option<String>,
    name: String,
}

impl Query {
    /// The query `object` (with `name` when typed apart, as in `deploy
    /// web`) and `namespace` (`--namespace`) make; why not, if they make
    /// none.
    pub fn parse(
        object: &str,
        name: Option<&str>,
        namespace: Option<&str>,
    ) -> Result<Query, String> {
        let parts: Vec<&str> = object.split('/').collect();
        let (kind, in_object, name) = match (parts.as_slice(), name) {
            ([kind], Some(name)) => (*kind, None, name),
            ([kind, name], None) => (*kind, None, *name),
            ([kind, namespace, name], None) => (*kind, Some(*namespace), *name),
            _ => {
                return Err(format!(
                    "`{object}{}` names no application; write KIND/NAMESPACE/NAME, KIND/NAME with --namespace, or KIND/NAME for a cluster-scoped one",
                    name.map(|n| format!(" {n}")).unwrap_or_default()
                ))
            }
        };
        let namespace = match (in_object, namespace) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!(
                    "`{object}` names namespace `{a}`, but --namespace says `{b}`"
                ))
            }
            (a, b) => a.or(b).map(str::to_string),
        };
        let typed = match parts.as_slice() {
            [_] => format!("{object} {name}"),
            _ => object.to_string(),
        };
        let namespace_flag = in_object.is_none() && namespace.is_some();
        let (kind, group) = match kind.split_once('.') {
            Some((kind, group)) => (kind, Some(group.to_string())),
            None => (kind, None),
        };
        if kind.is_empty() || name.is_empty() || namespace.as_deref() == Some("") {
            return Err(format!("`{object}` names no application"));
        }
        Ok(Query {
            kind: kind.to_lowercase(),
            typed,
            namespace_flag,
            group,
            namespace,
            name: name.to_string(),
        })
    }

    /// Whether `key` is of the kind (and group) and name asked for, in
    /// `namespace` (`None`: cluster-scoped).
    fn matches_in(&self, key: &ObjectKey, namespace: Option<&str>) -> bool {
        self.kind_matches(key) && key.name == self.name && key.namespace.as_deref() == namespace
    }

    fn kind_matches(&self, key: &ObjectKey) -> bool {
        let kind = key.kind.to_lowercase();
        let named = self.kind == kind
            || self.kind == plural(&kind)
            || SHORT_NAMES.contains(&(self.kind.as_str(), kind.as_str()));
        named && self.group_matches(key)
    }

    /// `apps`, or `v1.apps`, names the key's group (`v1` alone the core group).
    fn group_matches(&self, key: &ObjectKey) -> bool {
        let Some(typed) = &self.group else {
            return true;
        };
        let group = key.group();
        let version = key.api_version.rsplit('/').next().unwrap_or_default();
        *typed == group
            || *typed == format!("{version}.{group}")
            || (group.is_empty() && *typed == version)
    }

    /// The keys among `keys` the query names: in its namespace; without
    /// one, cluster-scoped, else in `default`, as kubectl reads it.
    pub fn select<'a, T>(&self, items: &'a [T], key: impl Fn(&T) -> &ObjectKey) -> Vec<&'a T> {
        let within = |namespace: Option<&str>| -> Vec<&'a T> {
            items
                .iter()
                .filter(|item| self.matches_in(key(item), namespace))
                .collect()
        };
        match &self.namespace {
            Some(namespace) => within(Some(namespace)),
            None => {
                let cluster_scoped = within(None);
                if cluster_scoped.is_empty() {
                    within(Some(DEFAULT_NAMESPACE))
                } else {
                    cluster_scoped
                }
            }
        }
    }

    /// The applications of `plan` the query names.
    pub fn find<'a>(&self, plan: &'a Plan) -> Vec<&'a App> {
        self.select(&plan.apps, |app| &app.key)
    }

    /// The applications among `keys` most likely meant when the query
    /// names none: those of the nearest names (within a third of the
    /// name's length), of the kind and namespace asked for if any are.
    pub fn suggest<'a>(&self, keys: impl IntoIterator<Item = &'a ObjectKey>) -> Vec<String> {
        let wanted = self.name.to_lowercase();
        let limit = (wanted.chars().count() / 3).max(1);
        let mut scored: Vec<(usize, String)> = keys
            .into_iter()
            .filter_map(|key| {
                let distance = crate::diag::edit_distance(&wanted, &key.name.to_lowercase());
                if distance > limit {
                    return None;
                }
                let kind = usize::from(!self.kind_matches(key));
                let namespace = match &self.namespace {
                    Some(ns) => key.namespace.as_deref() != Some(ns.as_str()),
                    None => key.namespace.is_some(),
                };
                let score = 4 * distance + 2 * kind + usize::from(namespace);
                Some((score, key.to_string()))
            })
            .collect();
        scored.sort();
        let best = scored.first().map(|(score, _)| *score);
        scored
            .into_iter()
            .take_while(|(score, _)| Some(*score) == best)
            .take(SUGGESTED)
            .map(|(_, key)| key)
            .collect()
    }
}

impl fmt::Display for Query {
    /// What was looked for, for a message: the application as typed,
    /// and the namespace when `--namespace` gave it, or where it was
    /// looked for when nothing gave one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.typed)?;
        match &self.namespace {
            Some(ns) if self.namespace_flag => write!(f, " in namespace `{ns}`"),
            Some(_) => Ok(()),
            None => write!(
                f,
                " (cluster-scoped, or in namespace `{DEFAULT_NAMESPACE}`)"
            ),
        }
    }
}

/// The plural kubectl uses for a lower-cased kind: `ingresses`,
/// `networkpolicies`, `deployments`.
fn plural(kind: &str) -> String {
    let consonant_y = kind.ends_with('y')
        && !kind
            .chars()
            .rev()
            .nth(1)
            .is_some_and(|c| "aeiou".contains(c));
    if consonant_y {
        format!("{}ies", &kind[..kind.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| kind.ends_with(e))
    {
        format!("{kind}es")
    } else {
        format!("{kind}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> ObjectKey {
        ObjectKey {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: namespace.map(str::to_string),
            name: name.into(),
        }
    }

    fn keys() -> Vec<ObjectKey> {
        vec![
            key("apps/v1", "Deployment", Some("shop"), "web"),
            key("apps/v1", "Deployment", Some("default"), "api"),
            key("v1", "Service", Some("shop"), "web"),
            key("networking.k8s.io/v1", "Ingress", Some("shop"), "web"),
            key(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                None,
                "system:reader",
            ),
            key(
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                None,
                "rollouts.rollouts.kruise.io",
            ),
        ]
    }

    fn found(object: &str, name: Option<&str>, namespace: Option<&str>) -> Vec<String> {
        let keys = keys();
        match Query::parse(object, name, namespace) {
            Ok(query) => query
                .select(&keys, |k| k)
                .iter()
                .map(|k| k.to_string())
                .collect(),
            Err(e) => vec![e],
        }
    }

    #[test]
    fn the_forms_kubectl_users_type_name_the_application() {
        let web = ["Deployment/shop/web"];
        assert_eq!(found("Deployment/shop/web", None, None), web);
        assert_eq!(found("deployment/shop/web", None, None), web);
        assert_eq!(found("deploy/web", None, Some("shop")), web);
        assert_eq!(found("deployments/web", None, Some("shop")), web);
        assert_eq!(found("deploy", Some("web"), Some("shop")), web);
        assert_eq!(found("Deployment.apps/shop/web", None, None), web);
        assert_eq!(found("deployments.v1.apps/web", None, Some("shop")), web);
        assert_eq!(found("deploy/shop/web", None, Some("shop")), web);
        assert_eq!(found("svc/web", None, Some("shop")), ["Service/shop/web"]);
        assert_eq!(
            found("service.v1/web", None, Some("shop")),
            ["Service/shop/web"]
        );
        assert_eq!(found("ing/web", None, Some("shop")), ["Ingress/shop/web"]);
        assert_eq!(
            found("ingresses/web", None, Some("shop")),
            ["Ingress/shop/web"]
        );
        assert_eq!(
            found("ClusterRole/system:reader", None, None),
            ["ClusterRole/system:reader"]
        );
        assert_eq!(
            found("crd/rollouts.rollouts.kruise.io", None, None),
            ["CustomResourceDefinition/rollouts.rollouts.kruise.io"]
        );
        assert_eq!(
            found("deploy/api", None, None),
            ["Deployment/default/api"],
            "kubectl's default namespace"
        );
        assert_eq!(
            found("Deployment.extensions/shop/web", None, None),
            Vec::<String>::new()
        );
        assert_eq!(found("deploy/web", None, None), Vec::<String>::new());
    }

    #[test]
    fn a_query_that_names_nothing_says_why() {
        assert_eq!(
            found("deploy/shop/web", None, Some("other")),
            ["`deploy/shop/web` names namespace `shop`, but --namespace says `other`"]
        );
        assert_eq!(
            found("web", None, None),
            ["`web` names no application; write KIND/NAMESPACE/NAME, KIND/NAME with --namespace, or KIND/NAME for a cluster-scoped one"]
        );
        assert_eq!(
            found("deploy/web", Some("web"), None),
            ["`deploy/web web` names no application; write KIND/NAMESPACE/NAME, KIND/NAME with --namespace, or KIND/NAME for a cluster-scoped one"]
        );
    }

    #[test]
    fn the_nearest_applications_are_suggested() {
        let keys = keys();
        let suggest = |object: &str, namespace: Option<&str>| {
            Query::parse(object, None, namespace)
                .map(|q| q.suggest(&keys))
                .unwrap_or_default()
        };
        assert_eq!(
            suggest("deploy/web", None),
            ["Deployment/shop/web"],
            "the kind asked for, in its namespace"
        );
        assert_eq!(
            suggest("svc/wbe", Some("shop")),
            ["Service/shop/web"],
            "a typo"
        );
        assert_eq!(
            suggest("sts/web", Some("shop")),
            [
                "Deployment/shop/web",
                "Ingress/shop/web",
                "Service/shop/web"
            ],
            "the name, of any kind"
        );
        assert_eq!(
            suggest("deploy/payments", Some("shop")),
            Vec::<String>::new()
        );
    }

    #[test]
    fn plurals_are_kubectl_s() {
        assert_eq!(plural("deployment"), "deployments");
        assert_eq!(plural("ingress"), "ingresses");
        assert_eq!(plural("networkpolicy"), "networkpolicies");
        assert_eq!(plural("gateway"), "gateways");
    }
}
