//! Clusternet's own localizer vectors (`TestApplyOverrides`,
//! `TestApplyJSONPatch`), restated, and the rules of the patch library it
//! uses where they differ from Karmada's.

use super::*;
use crate::model::clusternet::{FieldFormat, OverrideConfig, OverrideType};
use serde_json::json;

fn config(kind: OverrideType, value: &str) -> OverrideConfig {
    OverrideConfig {
        name: None,
        value: value.into(),
        kind,
        override_chart: None,
        field_path: None,
        field_format: None,
    }
}

/// Every override in turn, then Clusternet's three built-in removals
/// (themselves JSONPatches, dropped when the path is missing).
fn localize(mut object: Value, configs: &[OverrideConfig]) -> Result<Value, String> {
    let mut chart_seen = false;
    let built_in = ["/metadata/managedFields", "/metadata/uid", "/status"].map(|p| {
        config(
            OverrideType::JSONPatch,
            &format!(r#"[{{"path":"{p}","op":"remove"}}]"#),
        )
    });
    for c in configs.iter().chain(&built_in) {
        apply(&mut object, c, &mut chart_seen)?;
    }
    Ok(object)
}

#[test]
fn clusternets_json_patch_and_merge_patch_vector() {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "pod", "labels": {"app": "nginx"}, "uid": "1234-678",
                     "managedFields": [{"manager": "kubectl-client-side-apply"}]},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]},
        "status": {"a": "b"}
    });
    let configs = [
        config(OverrideType::MergePatch, "   "),
        config(
            OverrideType::MergePatch,
            r#"{"metadata":{"namespace":"test"}}"#,
        ),
        config(OverrideType::JSONPatch, "   "),
        config(
            OverrideType::MergePatch,
            "\nmetadata:\n    namespace: test2\n",
        ),
        config(
            OverrideType::JSONPatch,
            r#"[{"op": "replace", "path": "/spec/containers/0/image", "value":"nginx:1.21.1"}]"#,
        ),
        config(
            OverrideType::MergePatch,
            r#"{"metadata":{"labels":{"foo":"bar","xyz":"def","key":"value"}}}"#,
        ),
        config(
            OverrideType::MergePatch,
            r#"{"metadata":{"labels":{"xyz":null}}}"#,
        ),
        config(
            OverrideType::MergePatch,
            "\nmetadata:\n  labels:\n    key: null\n",
        ),
        config(
            OverrideType::JSONPatch,
            r#"[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.20.1"}]"#,
        ),
        config(
            OverrideType::JSONPatch,
            r#"[{"op":"add","path": "/spec/containers/1","value":{"name":"injected-container","image":"redis:6.2.5"}}]"#,
        ),
    ];
    let got = localize(pod, &configs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        got,
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "pod", "labels": {"app": "nginx", "foo": "bar"}, "namespace": "test2"},
            "spec": {"containers": [
                {"name": "nginx", "image": "nginx:1.20.1"},
                {"name": "injected-container", "image": "redis:6.2.5"}
            ]}
        })
    );
}

#[test]
fn clusternets_helm_values_vector_on_a_plain_object() {
    let original = json!({
        "kind": "Guess",
        "address": {"city": "Nantucket", "street": "123 Spouter Inn Ct."},
        "boat": "pequod", "details": {"friends": ["Tashtego"]}, "name": "Ishmael"
    });
    let chart = |value: &str| OverrideConfig {
        override_chart: Some(true),
        ..config(OverrideType::Helm, value)
    };
    let configs = [
        config(OverrideType::Helm, ""),
        config(
            OverrideType::Helm,
            r#"{"address":{"country":"US","state":"MA"},"boat":"fighter"}"#,
        ),
        config(OverrideType::Helm, "   "),
        config(
            OverrideType::Helm,
            "\naddress:\n  planet: Earth\n  street: 234 Spouter Inn Ct.\nhole: black\n",
        ),
        chart(r#"{"metadata":{"labels":{"foo":"bar"}}}"#),
        chart(r#"{"spec":{"repo":"https://clusternet.github.io/charts"}}"#),
    ];
    let got = localize(original, &configs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        got,
        json!({
            "kind": "Guess",
            "address": {"city": "Nantucket", "street": "234 Spouter Inn Ct.", "country": "US", "state": "MA", "planet": "Earth"},
            "boat": "fighter", "details": {"friends": ["Tashtego"]}, "name": "Ishmael", "hole": "black"
        })
    );
}

#[test]
fn clusternets_json_patch_vector_removing_a_missing_key_changes_nothing() {
    let cur =
        json!({"metadata": {"labels": {"some-label": "some-value"}}, "spec": {"version": "1.8.0"}});
    let mut doc = cur.clone();
    let remove = |p: &str| {
        config(
            OverrideType::JSONPatch,
            &format!(r#"[{{"path":"{p}","op":"remove"}}]"#),
        )
    };
    let outcome = apply(&mut doc, &remove("/spec/chart"), &mut false);
    assert!(matches!(outcome, Ok(Outcome::Dropped(_))), "{outcome:?}");
    assert_eq!(doc, cur);
    apply(&mut doc, &remove("/spec/version"), &mut false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        doc,
        json!({"metadata": {"labels": {"some-label": "some-value"}}, "spec": {}})
    );
}

#[test]
fn a_missing_path_drops_the_whole_patch_and_other_faults_fail() {
    let object = json!({"spec": {"replicas": 1, "list": [1, 2]}});
    let patch = |ops: &str| config(OverrideType::JSONPatch, ops);
    let run = |ops: &str| {
        let mut doc = object.clone();
        let outcome = apply(&mut doc, &patch(ops), &mut false);
        (doc, outcome)
    };
    // The first operation applies, the second misses: neither stays.
    let (doc, outcome) = run(
        r#"[{"op":"replace","path":"/spec/replicas","value":5},{"op":"add","path":"/nope/x","value":1}]"#,
    );
    assert!(matches!(outcome, Ok(Outcome::Dropped(_))), "{outcome:?}");
    assert_eq!(doc, object);
    // An index out of range on `remove`, and a failed `test`, fail.
    for ops in [
        r#"[{"op":"remove","path":"/spec/list/5"}]"#,
        r#"[{"op":"test","path":"/spec/replicas","value":2}]"#,
        r#"[{"op":"frobnicate","path":"/spec"}]"#,
        r#"[{"op":"add","path":"spec/x","value":1}]"#,
    ] {
        let (doc, outcome) = run(ops);
        assert!(outcome.is_err(), "{ops}: {outcome:?}");
        assert_eq!(doc, object, "{ops}");
    }
    // `replace` out of range on an array is a missing path.
    let (_, outcome) = run(r#"[{"op":"replace","path":"/spec/list/7","value":0}]"#);
    assert!(matches!(outcome, Ok(Outcome::Dropped(_))), "{outcome:?}");
}

#[test]
fn replace_of_a_key_an_object_lacks_adds_it_as_the_original_api_does() {
    let mut doc = json!({"spec": {}});
    let c = config(
        OverrideType::JSONPatch,
        r#"[{"op":"replace","path":"/spec/replicas","value":3}]"#,
    );
    let outcome = apply(&mut doc, &c, &mut false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc, json!({"spec": {"replicas": 3}}));
    assert_eq!(
        outcome,
        Outcome::Applied(vec![Change {
            path: "/spec/replicas".into(),
            old: None,
            new: Some(json!(3))
        }])
    );
}

#[test]
fn move_copy_and_test_follow_the_original_api() {
    let mut doc = json!({"a": {"b": 1}, "l": [1, 2, 3]});
    let c = config(
        OverrideType::JSONPatch,
        r#"[{"op":"copy","from":"/a/b","path":"/c"},{"op":"move","from":"/l/0","path":"/l/-"},{"op":"test","path":"/missing","value":null},{"op":"add","path":"/l/-1","value":9}]"#,
    );
    apply(&mut doc, &c, &mut false).unwrap_or_else(|e| panic!("{e}"));
    // `-1` on insertion counts from one past the end: it appends.
    assert_eq!(doc, json!({"a": {"b": 1}, "l": [2, 3, 1, 9], "c": 1}));
}

#[test]
fn merge_patch_prunes_nulls_only_where_nothing_was_merged_into() {
    let mut doc = json!({"keep": {"x": 1}, "scalar": 1});
    let c = config(
        OverrideType::MergePatch,
        r#"{"new": {"a": null, "b": {"c": null, "d": 2}}, "scalar": {"e": null}, "keep": {"x": null, "y": [null, {"z": null}]}}"#,
    );
    apply(&mut doc, &c, &mut false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        doc,
        json!({"keep": {"y": [null, {}]}, "scalar": {}, "new": {"b": {"d": 2}}})
    );
    let list = config(OverrideType::MergePatch, "[1, 2]");
    assert!(apply(&mut doc, &list, &mut false).is_err());
}

#[test]
fn field_patches_rewrite_json_sorted_with_four_spaces_and_yaml_sorted() {
    let field = |kind, format, path: &str, value: &str| OverrideConfig {
        field_path: Some(path.into()),
        field_format: Some(format),
        ..config(kind, value)
    };
    let mut doc = json!({"data": {
        "app.json": "{\"z\": 1, \"a\": {\"y\": 2}, \"html\": \"<b>\"}",
        "app.yaml": "z: 1\na:\n  x: 2\n",
        "empty": ""
    }});
    let patches = [
        field(
            OverrideType::FieldJSONPatch,
            FieldFormat::Json,
            "/data/app.json",
            r#"[{"op":"replace","path":"/a/y","value":3}]"#,
        ),
        field(
            OverrideType::FieldMergePatch,
            FieldFormat::Yaml,
            "/data/app.yaml",
            r#"{"a": {"x": null, "w": 4}}"#,
        ),
        field(
            OverrideType::FieldMergePatch,
            FieldFormat::Json,
            "/data/empty",
            r#"{"a": 1}"#,
        ),
    ];
    for p in &patches {
        apply(&mut doc, p, &mut false).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(
        doc["data"]["app.json"],
        json!("{\n    \"a\": {\n        \"y\": 3\n    },\n    \"html\": \"\\u003cb\\u003e\",\n    \"z\": 1\n}")
    );
    assert_eq!(doc["data"]["app.yaml"], json!("a:\n  w: 4\nz: 1\n"));
    assert_eq!(doc["data"]["empty"], json!(""));
    let missing = field(
        OverrideType::FieldJSONPatch,
        FieldFormat::Json,
        "/data/nope",
        "[]",
    );
    assert!(apply(&mut doc, &missing, &mut false).is_err());
}

#[test]
fn the_first_override_chart_override_of_a_plain_object_is_skipped_and_later_ones_apply() {
    let mut doc = json!({"metadata": {"labels": {}}});
    let chart_json = |value: &str| OverrideConfig {
        override_chart: Some(true),
        ..config(OverrideType::MergePatch, value)
    };
    let mut seen = false;
    let first = apply(
        &mut doc,
        &chart_json(r#"{"metadata":{"labels":{"a":"1"}}}"#),
        &mut seen,
    );
    assert!(matches!(first, Ok(Outcome::Skipped(_))), "{first:?}");
    apply(
        &mut doc,
        &chart_json(r#"{"metadata":{"labels":{"b":"2"}}}"#),
        &mut seen,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc, json!({"metadata": {"labels": {"b": "2"}}}));
}

#[test]
fn plain_keys_read_as_yaml_1_1_too_and_keys_that_meet_are_refused() {
    let mut doc = json!({"data": {}});
    let c = config(
        OverrideType::MergePatch,
        "data:\n  on: push\n  'yes': quoted\n  1: one\n",
    );
    apply(&mut doc, &c, &mut false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        doc,
        json!({"data": {"true": "push", "yes": "quoted", "1": "one"}})
    );
    let met = config(OverrideType::MergePatch, "data:\n  on: a\n  yes: b\n");
    assert!(apply(&mut doc, &met, &mut false).is_err());
}

#[test]
fn yaml_values_read_as_yaml_1_1() {
    let mut doc = json!({"spec": {}});
    let c = config(
        OverrideType::MergePatch,
        "spec:\n  enabled: yes\n  mode: 0644\n",
    );
    apply(&mut doc, &c, &mut false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc, json!({"spec": {"enabled": true, "mode": 420}}));
}
