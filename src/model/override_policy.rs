//! The `spec` of `OverridePolicy` / `ClusterOverridePolicy` (policy.karmada.io/v1alpha1).
//!
//! Field names and enum values are Karmada's (`pkg/apis/policy/v1alpha1/override_types.go`);
//! an operator or image component outside the CRD's enum is a deserialisation
//! error. Serialising an [`Overriders`] gives the JSON Karmada writes into the
//! `policy.karmada.io/applied-*overrides` annotations: API field names, empty
//! lists omitted, and `value` of plaintext and field sub-operations always
//! present (`null` when absent), with object keys sorted as the API server
//! stores them. [`OverrideSpec::rules`] folds the deprecated
//! `targetCluster` + `overriders` pair into the rule list exactly like the
//! override manager does, and [`OverrideSpec::faults`] mirrors the webhook.

use super::affinity::ClusterAffinity;
use super::resource_selector::ResourceSelector;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverrideSpec {
    /// Empty means every resource (with the lowest implicit priority).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_selectors: Vec<ResourceSelector>,
    /// `None` when absent or `null`; `Some(vec![])` is kept apart because the
    /// webhook refuses an explicit (even empty) list next to `targetCluster`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_rules: Option<Vec<RuleWithCluster>>,
    /// Deprecated single-rule form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_cluster: Option<ClusterAffinity>,
    /// Deprecated single-rule form.
    #[serde(default)]
    pub overriders: Overriders,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleWithCluster {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_cluster: Option<ClusterAffinity>,
    pub overriders: Overriders,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overriders {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plaintext: Vec<PlaintextOverrider>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_overrider: Vec<ImageOverrider>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command_overrider: Vec<CommandArgsOverrider>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args_overrider: Vec<CommandArgsOverrider>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels_overrider: Vec<LabelAnnotationOverrider>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub annotations_overrider: Vec<LabelAnnotationOverrider>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub field_overrider: Vec<FieldOverrider>,
}

/// `add`, `remove` or `replace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operator {
    Add,
    Remove,
    Replace,
}

/// The command/args overrider only knows `add` and `remove` (CRD enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandArgsOperator {
    Add,
    Remove,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImageComponent {
    Registry,
    Repository,
    Tag,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaintextOverrider {
    pub path: String,
    pub operator: Operator,
    /// `null` and absent are the same (Karmada sends `null`).
    #[serde(default, serialize_with = "sorted_or_null")]
    pub value: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageOverrider {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicate: Option<ImagePredicate>,
    pub component: ImageComponent,
    pub operator: Operator,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePredicate {
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandArgsOverrider {
    pub container_name: String,
    pub operator: CommandArgsOperator,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub value: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelAnnotationOverrider {
    pub operator: Operator,
    /// Serialised as `null` when absent, like Karmada's non-omitempty map.
    #[serde(default)]
    pub value: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldOverrider {
    pub field_path: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub json: Vec<SubPatch>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub yaml: Vec<SubPatch>,
}

/// `JSONPatchOperation` and `YAMLPatchOperation` (identical in Karmada).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubPatch {
    pub sub_path: String,
    pub operator: Operator,
    #[serde(default, serialize_with = "sorted_or_null")]
    pub value: Option<Value>,
}

impl Overriders {
    /// Whether every list is empty.
    pub fn is_empty(&self) -> bool {
        self.plaintext.is_empty()
            && self.image_overrider.is_empty()
            && self.command_overrider.is_empty()
            && self.args_overrider.is_empty()
            && self.labels_overrider.is_empty()
            && self.annotations_overrider.is_empty()
            && self.field_overrider.is_empty()
    }
}

impl OverrideSpec {
    /// The rules Karmada evaluates, in order: `(rule index, targetCluster, overriders)`.
    /// With no (or an empty) `overrideRules`, the deprecated pair is the single
    /// rule 0 — even when its overriders are empty, so such a policy still
    /// shows up in the applied-overrides record.
    pub fn rules(&self) -> Vec<(usize, Option<&ClusterAffinity>, &Overriders)> {
        match self.override_rules.as_deref() {
            Some(rules) if !rules.is_empty() => rules
                .iter()
                .enumerate()
                .map(|(i, r)| (i, r.target_cluster.as_ref(), &r.overriders))
                .collect(),
            _ => vec![(0, self.target_cluster.as_ref(), &self.overriders)],
        }
    }

    /// JSON pointer (within the spec) of the overriders of rule `rule` as
    /// numbered by [`OverrideSpec::rules`].
    pub fn overriders_pointer(&self, rule: usize) -> String {
        match self.override_rules.as_deref() {
            Some(rules) if !rules.is_empty() => format!("/overrideRules/{rule}/overriders"),
            _ => "/overriders".to_string(),
        }
    }

    /// What Karmada's validating webhook would refuse, as
    /// `(JSON pointer within the spec, message)`. Unlike the webhook, the
    /// deprecated single-rule form is checked too, and a deprecated
    /// `fieldOverrider` next to `overrideRules` counts as combining the forms.
    pub fn faults(&self) -> Vec<(String, String)> {
        let mut faults = Vec::new();
        if self.override_rules.is_some() {
            if self.target_cluster.is_some() {
                faults.push((
                    "/targetCluster".to_string(),
                    "`overrideRules` and `targetCluster` can't co-exist".to_string(),
                ));
            }
            if !self.overriders.is_empty() {
                faults.push((
                    "/overriders".to_string(),
                    "`overrideRules` and `overriders` can't co-exist".to_string(),
                ));
            }
        }
        for (rule, _, overriders) in self.rules() {
            overriders_faults(overriders, &self.overriders_pointer(rule), &mut faults);
        }
        faults
    }
}

fn overriders_faults(overriders: &Overriders, base: &str, faults: &mut Vec<(String, String)>) {
    for (i, image) in overriders.image_overrider.iter().enumerate() {
        if let Some(predicate) = &image.predicate {
            if !predicate.path.starts_with('/') {
                faults.push((
                    format!("{base}/imageOverrider/{i}/predicate/path"),
                    format!("predicate path `{}` must start with `/`", predicate.path),
                ));
            }
        }
    }
    for (i, field) in overriders.field_overrider.iter().enumerate() {
        let at = format!("{base}/fieldOverrider/{i}");
        match (field.json.is_empty(), field.yaml.is_empty()) {
            (false, false) => {
                faults.push((at.clone(), "set only one of `json` and `yaml`".to_string()))
            }
            (true, true) => faults.push((
                at.clone(),
                "one of `json` or `yaml` is required".to_string(),
            )),
            _ => {}
        }
        if !pointer_syntax_ok(&field.field_path) {
            faults.push((
                format!("{at}/fieldPath"),
                format!(
                    "`{}` is not a JSON pointer: it must be empty or start with `/`",
                    field.field_path
                ),
            ));
        }
        for (list, ops) in [("json", &field.json), ("yaml", &field.yaml)] {
            for (k, op) in ops.iter().enumerate() {
                let op_at = format!("{at}/{list}/{k}");
                if !pointer_syntax_ok(&op.sub_path) {
                    faults.push((
                        format!("{op_at}/subPath"),
                        format!(
                            "`{}` is not a JSON pointer: it must be empty or start with `/`",
                            op.sub_path
                        ),
                    ));
                }
                match (op.operator, op.value.is_some()) {
                    (Operator::Add | Operator::Replace, false) => faults.push((
                        format!("{op_at}/value"),
                        "a value is required for `add` and `replace`".to_string(),
                    )),
                    (Operator::Remove, true) => faults.push((
                        format!("{op_at}/value"),
                        "a value is not allowed for `remove`".to_string(),
                    )),
                    _ => {}
                }
            }
        }
    }
}

fn pointer_syntax_ok(pointer: &str) -> bool {
    pointer.is_empty() || pointer.starts_with('/')
}

/// Writes a user value the way Karmada echoes it back: `null` when absent,
/// object keys sorted (the API server stores custom resources as maps).
fn sorted_or_null<S: Serializer>(value: &Option<Value>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => sort_keys(v).serialize(serializer),
        None => serializer.serialize_unit(),
    }
}

/// A copy of `value` with every object's keys in ascending byte order.
pub fn sort_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sort_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sort_keys).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> OverrideSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn deprecated_pair_is_rule_zero_even_when_empty() {
        let s = spec(json!({}));
        let rules = s.rules();
        assert_eq!(rules.len(), 1);
        assert!(rules[0].1.is_none() && rules[0].2.is_empty());
        assert_eq!(s.overriders_pointer(0), "/overriders");
    }

    #[test]
    fn override_rules_replace_the_deprecated_pair() {
        let s = spec(json!({
            "overrideRules": [
                {"overriders": {}},
                {"targetCluster": {"clusterNames": ["a"]}, "overriders": {"plaintext": [{"path": "/a", "operator": "remove"}]}}
            ]
        }));
        let rules = s.rules();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[1].0, 1);
        assert_eq!(rules[1].1.unwrap().cluster_names, vec!["a".to_string()]);
        assert_eq!(s.overriders_pointer(1), "/overrideRules/1/overriders");
    }

    #[test]
    fn unknown_operators_and_components_are_rejected() {
        let bad_op = json!({"overriders": {"plaintext": [{"path": "/a", "operator": "move"}]}});
        assert!(serde_json::from_value::<OverrideSpec>(bad_op).is_err());
        let bad_component =
            json!({"overriders": {"imageOverrider": [{"component": "Host", "operator": "add"}]}});
        assert!(serde_json::from_value::<OverrideSpec>(bad_component).is_err());
        let replace_command = json!({"overriders": {"commandOverrider": [{"containerName": "a", "operator": "replace"}]}});
        assert!(serde_json::from_value::<OverrideSpec>(replace_command).is_err());
    }

    #[test]
    fn explicit_null_value_is_the_same_as_absent() {
        let s = spec(
            json!({"overriders": {"plaintext": [{"path": "/a", "operator": "add", "value": null}]}}),
        );
        assert_eq!(s.overriders.plaintext[0].value, None);
    }

    #[test]
    fn serialisation_uses_api_names_and_omits_empty_lists() {
        let s = spec(json!({"overriders": {
            "plaintext": [{"path": "/a", "operator": "remove"}],
            "labelsOverrider": [{"operator": "add"}],
            "imageOverrider": [{"component": "Tag", "operator": "remove"}],
            "fieldOverrider": [{"fieldPath": "/data/x", "json": [{"subPath": "/k", "operator": "add", "value": {"b": 1, "a": 2}}]}]
        }}));
        assert_eq!(
            serde_json::to_string(&s.overriders).unwrap(),
            r#"{"plaintext":[{"path":"/a","operator":"remove","value":null}],"imageOverrider":[{"component":"Tag","operator":"remove"}],"labelsOverrider":[{"operator":"add","value":null}],"fieldOverrider":[{"fieldPath":"/data/x","json":[{"subPath":"/k","operator":"add","value":{"a":2,"b":1}}]}]}"#
        );
    }

    #[test]
    fn combining_both_forms_is_a_fault() {
        let s = spec(json!({
            "overrideRules": [],
            "targetCluster": {"clusterNames": ["a"]},
            "overriders": {"labelsOverrider": [{"operator": "add", "value": {"a": "b"}}]}
        }));
        let paths: Vec<String> = s.faults().into_iter().map(|f| f.0).collect();
        assert_eq!(
            paths,
            vec!["/targetCluster".to_string(), "/overriders".to_string()]
        );
    }

    #[test]
    fn field_overrider_faults_mirror_the_webhook() {
        let s = spec(json!({"overrideRules": [{"overriders": {"fieldOverrider": [
            {"fieldPath": "data/x"},
            {"fieldPath": "/data/x", "json": [{"subPath": "/a", "operator": "add"}], "yaml": [{"subPath": "b", "operator": "remove", "value": 1}]}
        ]}}]}));
        let faults = s.faults();
        let paths: Vec<&str> = faults.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "/overrideRules/0/overriders/fieldOverrider/0",
                "/overrideRules/0/overriders/fieldOverrider/0/fieldPath",
                "/overrideRules/0/overriders/fieldOverrider/1",
                "/overrideRules/0/overriders/fieldOverrider/1/json/0/value",
                "/overrideRules/0/overriders/fieldOverrider/1/yaml/0/subPath",
                "/overrideRules/0/overriders/fieldOverrider/1/yaml/0/value",
            ]
        );
    }

    #[test]
    fn image_predicate_path_must_be_absolute() {
        let s = spec(json!({"overriders": {"imageOverrider": [
            {"predicate": {"path": "spec/image"}, "component": "Tag", "operator": "replace", "value": "v1"}
        ]}}));
        assert_eq!(
            s.faults()[0].0,
            "/overriders/imageOverrider/0/predicate/path"
        );
    }
}
