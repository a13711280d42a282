//! End-to-end tests of policy selection, ordering, rule targeting and the
//! applied-overrides record, written from Karmada's documented behaviour.

use super::*;
use crate::model::selector::Labels;
use proptest::prelude::*;
use serde_json::json;

fn spec(v: Value) -> OverrideSpec {
    serde_json::from_value(v).unwrap()
}

fn cluster<'a>(name: &'a str, labels: &'a Labels) -> ClusterView<'a> {
    ClusterView {
        name,
        labels,
        provider: None,
        region: None,
        zones: &[],
    }
}

fn template_view(labels: &Labels) -> TemplateView<'_> {
    TemplateView {
        api_version: "apps/v1",
        kind: "Deployment",
        namespace: Some("default"),
        name: "nginx",
        labels,
    }
}

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19"}]}}}
    })
}

fn by_name() -> Value {
    json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}])
}

fn by_label() -> Value {
    json!([{"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "nginx"}}}])
}

#[test]
fn cluster_policies_come_first_then_namespaced_each_by_priority_then_name() {
    let specs = [
        spec(json!({"resourceSelectors": by_name()})),
        spec(json!({})),
        spec(json!({"resourceSelectors": by_label()})),
        spec(json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}]})),
        spec(json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "Service"}]})),
    ];
    let policies = [
        OverridePolicyRef {
            name: "op-name",
            namespace: Some("default"),
            spec: &specs[0],
        },
        OverridePolicyRef {
            name: "op-all",
            namespace: Some("default"),
            spec: &specs[1],
        },
        OverridePolicyRef {
            name: "op-other-ns",
            namespace: Some("other"),
            spec: &specs[1],
        },
        OverridePolicyRef {
            name: "cop-b-name",
            namespace: None,
            spec: &specs[0],
        },
        OverridePolicyRef {
            name: "cop-z-label",
            namespace: None,
            spec: &specs[2],
        },
        OverridePolicyRef {
            name: "cop-y-all",
            namespace: None,
            spec: &specs[3],
        },
        OverridePolicyRef {
            name: "cop-a-all",
            namespace: None,
            spec: &specs[1],
        },
        OverridePolicyRef {
            name: "cop-service",
            namespace: None,
            spec: &specs[4],
        },
    ];
    let labels: Labels = [("app".to_string(), "nginx".to_string())].into();
    let names: Vec<&str> = applicable(&policies, &template_view(&labels))
        .iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        names,
        vec![
            "cop-a-all",
            "cop-y-all",
            "cop-z-label",
            "cop-b-name",
            "op-all",
            "op-name"
        ]
    );
}

#[test]
fn override_policies_do_not_apply_to_cluster_scoped_templates() {
    let s = spec(json!({}));
    let policies = [
        OverridePolicyRef {
            name: "op",
            namespace: Some("default"),
            spec: &s,
        },
        OverridePolicyRef {
            name: "cop",
            namespace: None,
            spec: &s,
        },
    ];
    let labels = Labels::new();
    let view = TemplateView {
        api_version: "v1",
        kind: "Namespace",
        namespace: None,
        name: "default",
        labels: &labels,
    };
    let names: Vec<&str> = applicable(&policies, &view)
        .iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, vec!["cop"]);
}

#[test]
fn the_more_specific_policy_is_applied_last_and_wins() {
    let general = spec(
        json!({"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 2}]}}),
    );
    let specific = spec(
        json!({"resourceSelectors": by_name(), "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 5}]}}),
    );
    let policies = [
        OverridePolicyRef {
            name: "a-specific",
            namespace: Some("default"),
            spec: &specific,
        },
        OverridePolicyRef {
            name: "z-general",
            namespace: Some("default"),
            spec: &general,
        },
    ];
    let labels = Labels::new();
    let ordered = applicable(&policies, &template_view(&labels));
    let mut object = deployment();
    apply(&mut object, &ordered, &cluster("m1", &labels)).unwrap();
    assert_eq!(object["spec"]["replicas"], json!(5));
}

#[test]
fn overriders_of_a_rule_run_image_command_args_labels_annotations_field_plaintext() {
    // Each later overrider observes what the earlier ones did.
    let s = spec(json!({"overrideRules": [{"overriders": {
        "plaintext": [
            {"path": "/metadata/annotations/seen-image", "operator": "add", "value": "placeholder"},
            {"path": "/metadata/annotations/seen-image", "operator": "replace", "value": "done"}
        ],
        "fieldOverrider": [{"fieldPath": "/metadata/annotations/cfg", "json": [{"subPath": "/v", "operator": "replace", "value": 2}]}],
        "annotationsOverrider": [{"operator": "add", "value": {"cfg": "{\"v\":1}"}}],
        "labelsOverrider": [{"operator": "replace", "value": {"app": "relabelled"}}],
        "argsOverrider": [{"containerName": "nginx", "operator": "add", "value": ["--b"]}],
        "commandOverrider": [{"containerName": "nginx", "operator": "add", "value": ["nginx"]}],
        "imageOverrider": [{"component": "Registry", "operator": "replace", "value": "r.io"}]
    }}]}));
    let policy = OverridePolicyRef {
        name: "p",
        namespace: None,
        spec: &s,
    };
    let labels = Labels::new();
    let mut object = deployment();
    let applied = apply(&mut object, &[&policy], &cluster("m1", &labels)).unwrap();
    let kinds: Vec<&str> = applied.steps.iter().map(|s| s.overrider).collect();
    assert_eq!(
        kinds,
        vec![
            "imageOverrider",
            "commandOverrider",
            "argsOverrider",
            "labelsOverrider",
            "annotationsOverrider",
            "fieldOverrider",
            "plaintext",
            "plaintext"
        ]
    );
    assert_eq!(object["metadata"]["annotations"]["cfg"], json!("{\"v\":2}"));
    assert_eq!(object["metadata"]["labels"]["app"], json!("relabelled"));
    let container = &object["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["image"], json!("r.io/nginx:1.19"));
    assert_eq!(container["command"], json!(["nginx"]));
    assert_eq!(container["args"], json!(["--b"]));
}

#[test]
fn rules_apply_only_to_their_target_clusters() {
    let s = spec(json!({"overrideRules": [
        {"targetCluster": {"clusterNames": ["m1"]}, "overriders": {"labelsOverrider": [{"operator": "add", "value": {"at": "m1"}}]}},
        {"targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}}, "overriders": {"labelsOverrider": [{"operator": "add", "value": {"env": "prod"}}]}},
        {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"all": "yes"}}]}}
    ]}));
    let policy = OverridePolicyRef {
        name: "p",
        namespace: Some("default"),
        spec: &s,
    };
    let prod: Labels = [("env".to_string(), "prod".to_string())].into();
    let none = Labels::new();

    let mut object = deployment();
    let applied = apply(&mut object, &[&policy], &cluster("m1", &none)).unwrap();
    assert_eq!(
        object["metadata"]["labels"],
        json!({"app": "nginx", "at": "m1", "all": "yes"})
    );
    assert_eq!(applied.namespaced.len(), 2);
    assert!(applied.cluster.is_empty());

    let mut object = deployment();
    apply(&mut object, &[&policy], &cluster("m2", &prod)).unwrap();
    assert_eq!(
        object["metadata"]["labels"],
        json!({"app": "nginx", "env": "prod", "all": "yes"})
    );
}

#[test]
fn deprecated_single_rule_form_still_applies() {
    let s = spec(json!({
        "targetCluster": {"clusterNames": ["m1"]},
        "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 3}]}
    }));
    let policy = OverridePolicyRef {
        name: "old",
        namespace: None,
        spec: &s,
    };
    let labels = Labels::new();
    let mut object = deployment();
    apply(&mut object, &[&policy], &cluster("m1", &labels)).unwrap();
    assert_eq!(object["spec"]["replicas"], json!(3));
    let mut object = deployment();
    let applied = apply(&mut object, &[&policy], &cluster("m2", &labels)).unwrap();
    assert_eq!(object, deployment());
    assert!(applied.annotations().is_empty());
}

#[test]
fn applied_annotations_list_rules_sorted_by_policy_name() {
    let empty = spec(json!({}));
    let two_rules = spec(json!({"overrideRules": [
        {"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 2}]}},
        {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"b": "<&>", "a": "1"}}]}}
    ]}));
    let policies = [
        OverridePolicyRef {
            name: "ccc",
            namespace: None,
            spec: &empty,
        },
        OverridePolicyRef {
            name: "aaa",
            namespace: None,
            spec: &two_rules,
        },
        OverridePolicyRef {
            name: "bbb",
            namespace: Some("default"),
            spec: &empty,
        },
    ];
    let refs: Vec<&OverridePolicyRef<'_>> = policies.iter().collect();
    let labels = Labels::new();
    let mut object = deployment();
    let applied = apply(&mut object, &refs, &cluster("m1", &labels)).unwrap();
    assert_eq!(
        applied.annotations(),
        vec![
            (
                "policy.karmada.io/applied-cluster-overrides".to_string(),
                concat!(
                    r#"[{"policyName":"aaa","overriders":{"plaintext":[{"path":"/spec/replicas","operator":"replace","value":2}]}},"#,
                    r#"{"policyName":"aaa","overriders":{"labelsOverrider":[{"operator":"add","value":{"a":"1","b":"\u003c\u0026\u003e"}}]}},"#,
                    r#"{"policyName":"ccc","overriders":{}}]"#
                )
                .to_string()
            ),
            ("policy.karmada.io/applied-overrides".to_string(), r#"[{"policyName":"bbb","overriders":{}}]"#.to_string()),
        ]
    );
}

#[test]
fn a_failure_aborts_everything_and_names_the_spot_in_the_policy() {
    let good = spec(
        json!({"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 9}]}}),
    );
    let bad = spec(json!({"overrideRules": [
        {"overriders": {}},
        {"overriders": {"plaintext": [
            {"path": "/spec/replicas", "operator": "replace", "value": 2},
            {"path": "/spec/foo", "operator": "replace", "value": 1}
        ]}}
    ]}));
    let policies = [
        OverridePolicyRef {
            name: "good",
            namespace: None,
            spec: &good,
        },
        OverridePolicyRef {
            name: "bad",
            namespace: Some("default"),
            spec: &bad,
        },
    ];
    let refs: Vec<&OverridePolicyRef<'_>> = policies.iter().collect();
    let labels = Labels::new();
    let mut object = deployment();
    let err = apply(&mut object, &refs, &cluster("m1", &labels)).unwrap_err();
    assert_eq!(object, deployment());
    assert_eq!(err.policy_name, "bad");
    assert_eq!(err.policy_namespace.as_deref(), Some("default"));
    assert_eq!((err.rule, err.overrider, err.item), (1, "plaintext", 1));
    assert_eq!(
        err.path_in_spec,
        "/spec/overrideRules/1/overriders/plaintext/1/path"
    );
    assert_eq!(
        err.fault.to_string(),
        "cannot `replace` `/spec/foo`: path does not exist"
    );
    assert_eq!(
        err.to_string(),
        "OverridePolicy `default/bad`: `/spec/overrideRules/1/overriders/plaintext/1/path`: cannot `replace` `/spec/foo`: path does not exist"
    );
}

#[test]
fn image_errors_point_at_the_overrider() {
    let s = spec(json!({"overriders": {"imageOverrider": [
        {"component": "Tag", "operator": "replace", "value": "v2"},
        {"predicate": {"path": "/spec/template/spec/containers/3/image"}, "component": "Tag", "operator": "replace", "value": "v2"}
    ]}}));
    let policy = OverridePolicyRef {
        name: "p",
        namespace: None,
        spec: &s,
    };
    let labels = Labels::new();
    let mut object = deployment();
    let err = apply(&mut object, &[&policy], &cluster("m1", &labels)).unwrap_err();
    assert_eq!(
        err.path_in_spec,
        "/spec/overriders/imageOverrider/1/predicate/path"
    );

    let mut object = deployment();
    object["spec"]["template"]["spec"]["containers"][0]["image"] = json!("Bad:Image");
    let err = apply(&mut object, &[&policy], &cluster("m1", &labels)).unwrap_err();
    assert_eq!(err.path_in_spec, "/spec/overriders/imageOverrider/0");
    assert_eq!(
        err.fault.to_string(),
        "cannot parse image `Bad:Image`: repository name must be lowercase"
    );
}

#[test]
fn image_predicate_targets_one_path() {
    let s = spec(json!({"overriders": {"imageOverrider": [
        {"predicate": {"path": "/spec/template/spec/initContainers/0/image"}, "component": "Registry", "operator": "add", "value": "mirror.io"}
    ]}}));
    let policy = OverridePolicyRef {
        name: "p",
        namespace: None,
        spec: &s,
    };
    let labels = Labels::new();
    let mut object = deployment();
    object["spec"]["template"]["spec"]["initContainers"] =
        json!([{"name": "init", "image": "busybox"}]);
    apply(&mut object, &[&policy], &cluster("m1", &labels)).unwrap();
    assert_eq!(
        object["spec"]["template"]["spec"]["initContainers"][0]["image"],
        json!("mirror.io/busybox")
    );
    assert_eq!(
        object["spec"]["template"]["spec"]["containers"][0]["image"],
        json!("nginx:1.19")
    );
}

#[test]
fn removing_kind_is_refused_like_unstructured_decoding() {
    let s = spec(json!({"overriders": {"plaintext": [{"path": "/kind", "operator": "remove"}]}}));
    let policy = OverridePolicyRef {
        name: "p",
        namespace: None,
        spec: &s,
    };
    let labels = Labels::new();
    let mut object = deployment();
    assert!(apply(&mut object, &[&policy], &cluster("m1", &labels)).is_err());
    assert_eq!(object, deployment());
}

#[test]
fn plaintext_remove_keeps_key_order() {
    let s = spec(
        json!({"overriders": {"plaintext": [{"path": "/metadata/namespace", "operator": "remove"}]}}),
    );
    let policy = OverridePolicyRef {
        name: "p",
        namespace: None,
        spec: &s,
    };
    let labels = Labels::new();
    let mut object = deployment();
    apply(&mut object, &[&policy], &cluster("m1", &labels)).unwrap();
    let keys: Vec<&String> = object["metadata"].as_object().unwrap().keys().collect();
    assert_eq!(keys, vec!["name", "labels"]);
}

#[test]
fn explain_lists_paths_and_values() {
    let s = spec(
        json!({"overriders": {"imageOverrider": [{"component": "Tag", "operator": "replace", "value": "1.21"}]}}),
    );
    let policy = OverridePolicyRef {
        name: "tags",
        namespace: None,
        spec: &s,
    };
    let labels = Labels::new();
    let mut object = deployment();
    let applied = apply(&mut object, &[&policy], &cluster("m1", &labels)).unwrap();
    assert_eq!(
        applied.explain(),
        vec![
            r#"ClusterOverridePolicy `tags` rule 0 imageOverrider[0]: `/spec/template/spec/containers/0/image` `"nginx:1.19"` → `"nginx:1.21"`"#
        ]
    );
}

fn arb_overriders() -> impl Strategy<Value = Value> {
    let key = "[a-c]{1,2}";
    let plaintext = (
        prop::sample::select(vec!["add", "replace", "remove"]),
        key,
        any::<i32>(),
    )
        .prop_map(|(op, k, v)| json!({"path": format!("/spec/{k}"), "operator": op, "value": v}));
    let label = (
        prop::sample::select(vec!["add", "replace", "remove"]),
        key,
        key,
    )
        .prop_map(|(op, k, v)| json!({"operator": op, "value": {k: v}}));
    (
        prop::collection::vec(plaintext, 0..4),
        prop::collection::vec(label, 0..3),
    )
        .prop_map(|(p, l)| json!({"plaintext": p, "labelsOverrider": l}))
}

proptest! {
    #[test]
    fn a_rule_for_one_cluster_never_touches_another(overriders in arb_overriders(), replicas in any::<i32>()) {
        let s = spec(json!({"overrideRules": [{"targetCluster": {"clusterNames": ["m1"]}, "overriders": overriders}]}));
        let policy = OverridePolicyRef { name: "p", namespace: None, spec: &s };
        let labels = Labels::new();
        let mut object = deployment();
        object["spec"]["replicas"] = json!(replicas);
        let before = object.clone();
        let applied = apply(&mut object, &[&policy], &cluster("m2", &labels)).unwrap();
        prop_assert_eq!(&object, &before);
        prop_assert!(applied.cluster.is_empty() && applied.steps.is_empty());
    }
}
