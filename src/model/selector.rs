//! Kubernetes label selectors and node-selector requirements, as Karmada reads them.
//!
//! `matchLabels` and `matchExpressions` are ANDed; an empty selector matches
//! everything (`metav1.LabelSelectorAsSelector`). A selector with an unknown
//! operator is invalid; Karmada then treats it as not matching.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub type Labels = BTreeMap<String, String>;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: Labels,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: SelectorOperator,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SelectorOperator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

impl LabelSelector {
    /// Whether `labels` satisfy every term of the selector.
    pub fn matches(&self, labels: &Labels) -> bool {
        self.match_labels
            .iter()
            .all(|(key, value)| labels.get(key) == Some(value))
            && self.match_expressions.iter().all(|requirement| {
                requirement.matches(labels.get(&requirement.key).map(String::as_str))
            })
    }

    /// The first structural fault Kubernetes' validation would report, if any.
    pub fn fault(&self) -> Option<String> {
        self.match_expressions
            .iter()
            .find_map(LabelSelectorRequirement::fault)
    }
}

impl LabelSelectorRequirement {
    /// Whether a label value (None when the label is absent) meets the requirement.
    pub fn matches(&self, value: Option<&str>) -> bool {
        match self.operator {
            SelectorOperator::In => value.is_some_and(|v| self.values.iter().any(|x| x == v)),
            SelectorOperator::NotIn => value.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            SelectorOperator::Exists => value.is_some(),
            SelectorOperator::DoesNotExist => value.is_none(),
        }
    }

    fn fault(&self) -> Option<String> {
        match self.operator {
            SelectorOperator::In | SelectorOperator::NotIn if self.values.is_empty() => {
                Some(format!(
                    "requirement on `{}` with operator `{:?}` needs at least one value",
                    self.key, self.operator
                ))
            }
            SelectorOperator::Exists | SelectorOperator::DoesNotExist
                if !self.values.is_empty() =>
            {
                Some(format!(
                    "requirement on `{}` with operator `{:?}` must not list values",
                    self.key, self.operator
                ))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn requirement(
        key: &str,
        operator: SelectorOperator,
        values: &[&str],
    ) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn empty_selector_matches_everything() {
        assert!(LabelSelector::default().matches(&labels(&[])));
    }

    #[test]
    fn match_labels_and_expressions_are_anded() {
        let selector = LabelSelector {
            match_labels: labels(&[("env", "prod")]),
            match_expressions: vec![requirement("region", SelectorOperator::In, &["eu", "us"])],
        };
        assert!(selector.matches(&labels(&[("env", "prod"), ("region", "eu")])));
        assert!(!selector.matches(&labels(&[("env", "prod"), ("region", "ap")])));
        assert!(!selector.matches(&labels(&[("region", "eu")])));
    }

    #[test]
    fn not_in_matches_a_missing_label_like_kubernetes() {
        let r = requirement("tier", SelectorOperator::NotIn, &["gold"]);
        assert!(r.matches(None));
        assert!(r.matches(Some("silver")));
        assert!(!r.matches(Some("gold")));
    }

    #[test]
    fn exists_and_does_not_exist() {
        assert!(requirement("a", SelectorOperator::Exists, &[]).matches(Some("")));
        assert!(!requirement("a", SelectorOperator::Exists, &[]).matches(None));
        assert!(requirement("a", SelectorOperator::DoesNotExist, &[]).matches(None));
    }

    #[test]
    fn in_without_values_is_a_fault() {
        let selector = LabelSelector {
            match_labels: Labels::new(),
            match_expressions: vec![requirement("a", SelectorOperator::In, &[])],
        };
        assert!(selector.fault().is_some());
    }
}
