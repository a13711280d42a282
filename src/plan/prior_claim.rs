//! The claim a template already carries, read as Karmada's detector reads
//! it before it matches any policy (`pkg/detector/policy.go`,
//! `propagateResource` and `getAndApplyPolicy` / `getAndApplyClusterPolicy`):
//! a template written by `kubectl get -o yaml` from a control plane keeps
//! the claim Karmada put on it.
//!
//! A claim is the permanent-id label of one kind of policy together with
//! that kind's name annotations, all non-empty; annotations alone are no
//! claim, and the policy is chosen afresh. A PropagationPolicy's claim is
//! checked first, then a ClusterPropagationPolicy's. For a claim:
//!
//! * the named policy does not exist: Karmada removes the claim (label and
//!   annotations) from the template and reconciles it again, which reads
//!   the next claim, or matches afresh;
//! * it exists and its resource selectors select the template: it keeps
//!   the template, whatever other policy matches better;
//! * it exists and does not select the template: the detector does
//!   nothing, and the template is never propagated.

use crate::model::inputs::{PropagationPolicy, Template};
use crate::model::meta::{CPP_NAME_ANNOTATION, CPP_PERMANENT_ID_LABEL};
use crate::model::meta::{PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION, PP_PERMANENT_ID_LABEL};
use crate::model::resource_selector::best_priority;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A claim written on a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PriorClaim<'a> {
    /// By a PropagationPolicy.
    Namespaced { namespace: &'a str, name: &'a str },
    /// By a ClusterPropagationPolicy.
    Cluster { name: &'a str },
}

impl PriorClaim<'_> {
    /// Whether the claim names the policy `name` in `namespace` (`None`: a
    /// ClusterPropagationPolicy).
    pub(crate) fn names(&self, namespace: Option<&str>, name: &str) -> bool {
        match *self {
            PriorClaim::Namespaced {
                namespace: claimed,
                name: claimed_name,
            } => namespace == Some(claimed) && name == claimed_name,
            PriorClaim::Cluster { name: claimed } => namespace.is_none() && name == claimed,
        }
    }
}

/// The claims in a template's labels and annotations, in the order the
/// detector checks them: a PropagationPolicy's, then a
/// ClusterPropagationPolicy's.
pub(crate) fn claims<'a>(
    labels: &'a BTreeMap<String, String>,
    annotations: &'a BTreeMap<String, String>,
) -> [Option<PriorClaim<'a>>; 2] {
    let text = |map: &'a BTreeMap<String, String>, key: &str| {
        map.get(key).map(String::as_str).filter(|v| !v.is_empty())
    };
    let namespaced = match (
        text(annotations, PP_NAMESPACE_ANNOTATION),
        text(annotations, PP_NAME_ANNOTATION),
        text(labels, PP_PERMANENT_ID_LABEL),
    ) {
        (Some(namespace), Some(name), Some(_)) => Some(PriorClaim::Namespaced { namespace, name }),
        _ => None,
    };
    let cluster = match (
        text(annotations, CPP_NAME_ANNOTATION),
        text(labels, CPP_PERMANENT_ID_LABEL),
    ) {
        (Some(name), Some(_)) => Some(PriorClaim::Cluster { name }),
        _ => None,
    };
    [namespaced, cluster]
}

/// What the detector makes of the claims a template carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// No claim stands: the policy is chosen afresh.
    Fresh,
    /// The claiming policy (an index into the policies) exists and
    /// selects the template: it keeps it.
    Kept(usize),
    /// The claiming policy exists but does not select the template: the
    /// detector leaves the template alone, unpropagated.
    LeftAlone(usize),
}

/// Read `template`'s claims against the repository's `policies`.
pub(crate) fn read(template: &Template, policies: &[PropagationPolicy]) -> Reading {
    for claim in claims(&template.labels, &template.annotations)
        .into_iter()
        .flatten()
    {
        // A claim whose policy does not exist is cleaned up, and the next
        // one read.
        let Some(index) = policies
            .iter()
            .position(|p| claim.names(p.namespace.as_deref(), &p.name))
        else {
            continue;
        };
        return if selects(&policies[index], template) {
            Reading::Kept(index)
        } else {
            Reading::LeftAlone(index)
        };
    }
    Reading::Fresh
}

/// `util.ResourceMatchSelectors` with the policy's selectors as admitted:
/// a PropagationPolicy's selectors are in its own namespace (its webhook
/// writes that namespace into every selector without one).
fn selects(policy: &PropagationPolicy, template: &Template) -> bool {
    let in_namespace = match &policy.namespace {
        Some(ns) => template.key.namespace.as_ref() == Some(ns),
        None => true,
    };
    in_namespace && best_priority(&policy.spec.resource_selectors, &template.view()).is_some()
}

/// The template as policy matching should see it after `reading`: with
/// only the claim annotations of the claim that stands (none when the
/// policy is chosen afresh), so that annotations Karmada does not honour
/// decide nothing.
pub(crate) fn as_read<'a>(
    template: &'a Template,
    reading: Reading,
    policies: &[PropagationPolicy],
) -> Cow<'a, Template> {
    let ignored: &[&str] = match reading {
        Reading::Kept(index) if policies[index].namespace.is_some() => &[],
        Reading::Kept(_) => &[PP_NAME_ANNOTATION, PP_NAMESPACE_ANNOTATION],
        Reading::Fresh | Reading::LeftAlone(_) => &[
            PP_NAME_ANNOTATION,
            PP_NAMESPACE_ANNOTATION,
            CPP_NAME_ANNOTATION,
        ],
    };
    if !ignored
        .iter()
        .any(|k| template.annotations.contains_key(*k))
    {
        return Cow::Borrowed(template);
    }
    let mut read = template.clone();
    read.annotations
        .retain(|k, _| !ignored.contains(&k.as_str()));
    Cow::Owned(read)
}

#[cfg(test)]
mod tests {
    //! Karmada's detector on templates that carry claims
    //! (`pkg/detector/policy.go`, `propagateResource`).
    use super::*;
    use crate::diag::Code;
    use crate::load::{cache::Cache, load_repository, LoadOptions};
    use crate::model::inputs::Inputs;
    use crate::model::previous::PreviousRender;

    const REPOSITORY: &str = r#"
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: a}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: p, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: kept}, {apiVersion: v1, kind: ConfigMap, name: annotated}]
  placement: {clusterAffinity: {clusterNames: [a]}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: first, namespace: shop}
spec:
  priority: 10
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  placement: {clusterAffinity: {clusterNames: [a]}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: c}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  placement: {clusterAffinity: {clusterNames: [a]}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: annotated
  namespace: shop
  annotations: {propagationpolicy.karmada.io/name: p, propagationpolicy.karmada.io/namespace: shop}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kept
  namespace: shop
  labels: {propagationpolicy.karmada.io/permanent-id: 5e1f}
  annotations: {propagationpolicy.karmada.io/name: p, propagationpolicy.karmada.io/namespace: shop}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: left-alone
  namespace: shop
  labels: {propagationpolicy.karmada.io/permanent-id: 5e1f}
  annotations: {propagationpolicy.karmada.io/name: p, propagationpolicy.karmada.io/namespace: shop}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: gone
  namespace: shop
  labels: {propagationpolicy.karmada.io/permanent-id: 5e1f, clusterpropagationpolicy.karmada.io/permanent-id: 77aa}
  annotations:
    propagationpolicy.karmada.io/name: old
    propagationpolicy.karmada.io/namespace: shop
    clusterpropagationpolicy.karmada.io/name: c
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: all-gone
  namespace: shop
  labels: {clusterpropagationpolicy.karmada.io/permanent-id: 77aa}
  annotations: {clusterpropagationpolicy.karmada.io/name: old}
"#;

    fn inputs() -> Inputs {
        let dir = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("no temporary directory: {e}"),
        };
        if let Err(e) = std::fs::write(dir.path().join("repo.yaml"), REPOSITORY) {
            panic!("cannot write the repository: {e}");
        }
        let (inputs, diagnostics) =
            load_repository(dir.path(), &LoadOptions::default(), &Cache::disabled());
        assert!(!diagnostics.has_errors(), "{diagnostics:?}");
        inputs
    }

    fn reading(inputs: &Inputs, name: &str) -> Reading {
        match inputs.templates.iter().find(|t| t.key.name == name) {
            Some(template) => read(template, &inputs.propagation_policies),
            None => panic!("no template {name}"),
        }
    }

    fn policy(inputs: &Inputs, name: &str) -> usize {
        match inputs
            .propagation_policies
            .iter()
            .position(|p| p.name == name)
        {
            Some(index) => index,
            None => panic!("no policy {name}"),
        }
    }

    #[test]
    fn claim_annotations_without_the_permanent_id_label_are_no_claim() {
        let inputs = inputs();
        assert_eq!(reading(&inputs, "annotated"), Reading::Fresh);
    }

    #[test]
    fn a_claim_whose_policy_selects_the_template_keeps_it() {
        let inputs = inputs();
        assert_eq!(
            reading(&inputs, "kept"),
            Reading::Kept(policy(&inputs, "p"))
        );
    }

    #[test]
    fn a_claim_whose_policy_no_longer_selects_the_template_leaves_it_alone() {
        let inputs = inputs();
        assert_eq!(
            reading(&inputs, "left-alone"),
            Reading::LeftAlone(policy(&inputs, "p"))
        );
    }

    #[test]
    fn a_claim_whose_policy_is_gone_gives_way_to_the_next() {
        let inputs = inputs();
        assert_eq!(
            reading(&inputs, "gone"),
            Reading::Kept(policy(&inputs, "c"))
        );
        assert_eq!(reading(&inputs, "all-gone"), Reading::Fresh);
    }

    /// The plan: the higher-priority policy takes what no standing claim
    /// keeps; a standing claim beats it, even a ClusterPropagationPolicy's
    /// over a PropagationPolicy; a template left alone is named (G0209).
    #[test]
    fn planning_decides_as_the_detector_does() {
        let inputs = inputs();
        let plan = match crate::plan::plan(&inputs, &PreviousRender::default()) {
            Ok(plan) => plan,
            Err(diagnostics) => panic!("planning failed: {diagnostics:?}"),
        };
        let claimer = |name: &str| {
            plan.apps
                .iter()
                .find(|a| a.key.name == name)
                .and_then(|a| a.policy())
                .map(|p| (p.namespace.clone(), p.name.clone()))
        };
        let shop = Some("shop".to_string());
        assert_eq!(claimer("annotated"), Some((shop.clone(), "first".into())));
        assert_eq!(claimer("kept"), Some((shop.clone(), "p".into())));
        assert_eq!(claimer("gone"), Some((None, "c".into())));
        assert_eq!(claimer("all-gone"), Some((shop, "first".into())));
        assert_eq!(claimer("left-alone"), None);
        let warned: Vec<&str> = plan
            .warnings
            .0
            .iter()
            .filter(|d| d.code == Code::ReservedNamespace)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            warned,
            ["`ConfigMap/shop/left-alone` is not rendered: it carries Karmada's claim by PropagationPolicy/shop/p, which does not select it, and Karmada leaves such a template alone"]
        );
    }
}
