//! `resourceSelectors`: which templates a policy applies to, and how specifically.
//!
//! Karmada ranks a selector's match (`util.ResourceMatchSelectorsPriority`):
//! apiVersion and kind must be equal and a given namespace must equal the
//! template's; then a `name` is an exact match (3, the label selector is not
//! consulted), no label selector matches everything (1), and a label selector
//! that matches is in between (2). A policy's implicit priority is the best
//! over its selectors.

use super::selector::{LabelSelector, Labels};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSelector {
    pub api_version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
}

/// How specifically a selector names a template; higher is more specific.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImplicitPriority {
    MatchAll = 1,
    MatchLabelSelector = 2,
    MatchName = 3,
}

/// The identity and labels of a template, as selectors see it.
#[derive(Clone, Copy, Debug)]
pub struct TemplateView<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    pub labels: &'a Labels,
}

impl ResourceSelector {
    /// How this selector matches the template, or `None` when it does not.
    pub fn priority_for(&self, template: &TemplateView<'_>) -> Option<ImplicitPriority> {
        if self.api_version != template.api_version || self.kind != template.kind {
            return None;
        }
        if let Some(namespace) = self.namespace.as_deref().filter(|ns| !ns.is_empty()) {
            if Some(namespace) != template.namespace {
                return None;
            }
        }
        if let Some(name) = self.name.as_deref().filter(|n| !n.is_empty()) {
            return (name == template.name).then_some(ImplicitPriority::MatchName);
        }
        match &self.label_selector {
            None => Some(ImplicitPriority::MatchAll),
            Some(selector) if selector.fault().is_some() => None,
            Some(selector) => selector
                .matches(template.labels)
                .then_some(ImplicitPriority::MatchLabelSelector),
        }
    }
}

/// The best priority over a list of selectors (a policy's implicit priority).
pub fn best_priority(
    selectors: &[ResourceSelector],
    template: &TemplateView<'_>,
) -> Option<ImplicitPriority> {
    selectors
        .iter()
        .filter_map(|s| s.priority_for(template))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template<'a>(labels: &'a Labels) -> TemplateView<'a> {
        TemplateView {
            api_version: "apps/v1",
            kind: "Deployment",
            namespace: Some("default"),
            name: "nginx",
            labels,
        }
    }

    fn selector(name: Option<&str>, label: Option<(&str, &str)>) -> ResourceSelector {
        ResourceSelector {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: None,
            name: name.map(String::from),
            label_selector: label.map(|(k, v)| LabelSelector {
                match_labels: [(k.to_string(), v.to_string())].into(),
                match_expressions: vec![],
            }),
        }
    }

    #[test]
    fn name_beats_labels_beats_match_all() {
        let labels: Labels = [("app".to_string(), "nginx".to_string())].into();
        let t = template(&labels);
        assert_eq!(
            selector(None, None).priority_for(&t),
            Some(ImplicitPriority::MatchAll)
        );
        assert_eq!(
            selector(None, Some(("app", "nginx"))).priority_for(&t),
            Some(ImplicitPriority::MatchLabelSelector)
        );
        assert_eq!(
            selector(Some("nginx"), None).priority_for(&t),
            Some(ImplicitPriority::MatchName)
        );
    }

    #[test]
    fn a_name_ignores_the_label_selector_like_karmada() {
        let labels = Labels::new();
        let t = template(&labels);
        assert_eq!(
            selector(Some("nginx"), Some(("app", "other"))).priority_for(&t),
            Some(ImplicitPriority::MatchName)
        );
        assert_eq!(selector(Some("other"), None).priority_for(&t), None);
    }

    #[test]
    fn kind_api_version_and_namespace_must_be_equal() {
        let labels = Labels::new();
        let t = template(&labels);
        let mut s = selector(None, None);
        s.api_version = "apps/v1beta1".into();
        assert_eq!(s.priority_for(&t), None);
        let mut s = selector(None, None);
        s.namespace = Some("other".into());
        assert_eq!(s.priority_for(&t), None);
    }

    #[test]
    fn best_priority_is_the_max_over_selectors() {
        let labels = Labels::new();
        let t = template(&labels);
        let selectors = [
            selector(Some("x"), None),
            selector(None, None),
            selector(Some("nginx"), None),
        ];
        assert_eq!(
            best_priority(&selectors, &t),
            Some(ImplicitPriority::MatchName)
        );
    }
}
