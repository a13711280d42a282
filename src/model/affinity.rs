//! `ClusterAffinity` and the one function that decides whether a cluster matches it.
//!
//! Placement, static weights and override rules all select clusters this way
//! (Karmada's `util.ClusterMatches`): every part that is given must match, and
//! `exclude` always wins. The cluster is seen through a [`ClusterView`], whose
//! labels already include the per-application facts garrison adds (such as
//! `garrison.dev/fort`), so a new fact never needs a new matching rule.

use super::selector::{LabelSelector, Labels};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterAffinity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_selector: Option<FieldSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_names: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

/// Matches the cluster's `provider`, `region` and `zone(s)` fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldSelector {
    #[serde(default)]
    pub match_expressions: Vec<FieldRequirement>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldRequirement {
    pub key: ClusterField,
    pub operator: FieldOperator,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClusterField {
    Provider,
    Region,
    Zone,
}

/// NodeSelectorOperator; Karmada's field selector uses In, NotIn, Exists and DoesNotExist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldOperator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
}

/// What affinity matching may look at: identity, labels (with garrison's
/// per-application facts merged in) and the location fields.
#[derive(Clone, Copy, Debug)]
pub struct ClusterView<'a> {
    pub name: &'a str,
    pub labels: &'a Labels,
    pub provider: Option<&'a str>,
    pub region: Option<&'a str>,
    pub zones: &'a [String],
}

impl ClusterAffinity {
    /// Karmada's `ClusterMatches`: exclude wins, then label selector, field
    /// selector and names must each match when given. An empty affinity
    /// matches every cluster.
    pub fn matches(&self, cluster: &ClusterView<'_>) -> bool {
        if self.exclude.iter().any(|name| name == cluster.name) {
            return false;
        }
        if let Some(selector) = &self.label_selector {
            if selector.fault().is_some() || !selector.matches(cluster.labels) {
                return false;
            }
        }
        if let Some(fields) = &self.field_selector {
            if !fields.match_expressions.iter().all(|r| r.matches(cluster)) {
                return false;
            }
        }
        self.cluster_names.is_empty() || self.cluster_names.iter().any(|name| name == cluster.name)
    }
}

impl FieldRequirement {
    fn matches(&self, cluster: &ClusterView<'_>) -> bool {
        let values: Vec<&str> = match self.key {
            ClusterField::Provider => cluster.provider.into_iter().collect(),
            ClusterField::Region => cluster.region.into_iter().collect(),
            ClusterField::Zone => cluster.zones.iter().map(String::as_str).collect(),
        };
        // Zones are a list: In means some zone is listed, NotIn that none is
        // (Karmada matches zone requirements against `spec.zones`).
        match self.operator {
            FieldOperator::In => values.iter().any(|v| self.values.iter().any(|x| x == v)),
            FieldOperator::NotIn => !values.iter().any(|v| self.values.iter().any(|x| x == v)),
            FieldOperator::Exists => !values.is_empty(),
            FieldOperator::DoesNotExist => values.is_empty(),
            FieldOperator::Gt | FieldOperator::Lt => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::selector::{LabelSelectorRequirement, SelectorOperator};

    fn view<'a>(
        name: &'a str,
        labels: &'a Labels,
        region: Option<&'a str>,
        zones: &'a [String],
    ) -> ClusterView<'a> {
        ClusterView {
            name,
            labels,
            provider: Some("aws"),
            region,
            zones,
        }
    }

    #[test]
    fn empty_affinity_matches_all_clusters() {
        let labels = Labels::new();
        assert!(ClusterAffinity::default().matches(&view("a", &labels, None, &[])));
    }

    #[test]
    fn exclude_wins_over_cluster_names() {
        let labels = Labels::new();
        let affinity = ClusterAffinity {
            cluster_names: vec!["a".into()],
            exclude: vec!["a".into()],
            ..Default::default()
        };
        assert!(!affinity.matches(&view("a", &labels, None, &[])));
    }

    #[test]
    fn every_given_part_must_match() {
        let labels: Labels = [("env".to_string(), "prod".to_string())].into();
        let affinity = ClusterAffinity {
            label_selector: Some(LabelSelector {
                match_labels: labels.clone(),
                match_expressions: vec![],
            }),
            cluster_names: vec!["b".into()],
            ..Default::default()
        };
        assert!(affinity.matches(&view("b", &labels, None, &[])));
        assert!(!affinity.matches(&view("a", &labels, None, &[])));
        assert!(!affinity.matches(&view("b", &Labels::new(), None, &[])));
    }

    #[test]
    fn field_selector_reads_region_and_zones() {
        let labels = Labels::new();
        let zones = vec!["eu-1a".to_string(), "eu-1b".to_string()];
        let affinity = ClusterAffinity {
            field_selector: Some(FieldSelector {
                match_expressions: vec![
                    FieldRequirement {
                        key: ClusterField::Region,
                        operator: FieldOperator::In,
                        values: vec!["eu".into()],
                    },
                    FieldRequirement {
                        key: ClusterField::Zone,
                        operator: FieldOperator::In,
                        values: vec!["eu-1b".into()],
                    },
                ],
            }),
            ..Default::default()
        };
        assert!(affinity.matches(&view("a", &labels, Some("eu"), &zones)));
        assert!(!affinity.matches(&view("a", &labels, Some("us"), &zones)));
        assert!(!affinity.matches(&view("a", &labels, Some("eu"), &[])));
    }

    #[test]
    fn an_invalid_label_selector_matches_nothing() {
        let labels = Labels::new();
        let affinity = ClusterAffinity {
            label_selector: Some(LabelSelector {
                match_labels: Labels::new(),
                match_expressions: vec![LabelSelectorRequirement {
                    key: "a".into(),
                    operator: SelectorOperator::In,
                    values: vec![],
                }],
            }),
            ..Default::default()
        };
        assert!(!affinity.matches(&view("a", &labels, None, &[])));
    }
}
