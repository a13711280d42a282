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

/// A policy as (name, namespace, spec); no namespace is a ClusterOverridePolicy.
type PolicyRow = (&'static str, Option<&'static str>, Value);

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A template as (apiVersion, kind, namespace, name, labels).
type TemplateRow = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// One call of [`applicable`]: which policies apply to a template, in order.
struct ApplicableCase {
    name: &'static str,
    template: TemplateRow,
    policies: Vec<PolicyRow>,
    expected: &'static [&'static str],
}

#[test]
fn applicable_orders_policies_as_karmada_does() {
    let nginx = (
        "apps/v1",
        "Deployment",
        Some("default"),
        "nginx",
        &[("app", "nginx")][..],
    );
    let cases = [
        ApplicableCase {
            name: "cluster policies first, then namespaced, each by priority then name",
            template: nginx,
            policies: vec![
                (
                    "op-name",
                    Some("default"),
                    json!({"resourceSelectors": by_name()}),
                ),
                ("op-all", Some("default"), json!({})),
                ("op-other-ns", Some("other"), json!({})),
                ("cop-b-name", None, json!({"resourceSelectors": by_name()})),
                (
                    "cop-z-label",
                    None,
                    json!({"resourceSelectors": by_label()}),
                ),
                (
                    "cop-y-all",
                    None,
                    json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}]}),
                ),
                ("cop-a-all", None, json!({})),
                (
                    "cop-service",
                    None,
                    json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "Service"}]}),
                ),
            ],
            expected: &[
                "cop-a-all",
                "cop-y-all",
                "cop-z-label",
                "cop-b-name",
                "op-all",
                "op-name",
            ],
        },
        ApplicableCase {
            name: "override policies do not apply to cluster-scoped templates",
            template: ("v1", "Namespace", None, "default", &[]),
            policies: vec![("op", Some("default"), json!({})), ("cop", None, json!({}))],
            expected: &["cop"],
        },
    ];
    for case in cases {
        let specs: Vec<OverrideSpec> = case.policies.iter().map(|p| spec(p.2.clone())).collect();
        let policies: Vec<OverridePolicyRef<'_>> = case
            .policies
            .iter()
            .zip(&specs)
            .map(|((name, namespace, _), spec)| OverridePolicyRef {
                name,
                namespace: *namespace,
                spec,
            })
            .collect();
        let (api_version, kind, namespace, name, template_labels) = case.template;
        let template_labels = labels(template_labels);
        let view = TemplateView {
            api_version,
            kind,
            namespace,
            name,
            labels: &template_labels,
        };
        let names: Vec<&str> = applicable(&policies, &view)
            .iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, case.expected, "{}", case.name);
    }
}

/// What [`apply`] gives.
enum Outcome {
    /// The object (compared as text, so key order counts), the
    /// applied-overrides annotations and the explanation lines.
    Applied {
        object: Value,
        annotations: &'static [(&'static str, &'static str)],
        explain: &'static [&'static str],
    },
    /// The error's message and its (rule, overrider, item); the object is
    /// left as it was.
    Refused {
        message: &'static str,
        at: (usize, &'static str, usize),
    },
}

/// The policies that [`applicable`] picks, applied to `object` for one cluster.
struct ApplyCase {
    name: &'static str,
    policies: Vec<PolicyRow>,
    object: Value,
    cluster: &'static str,
    cluster_labels: &'static [(&'static str, &'static str)],
    outcome: Outcome,
}

#[test]
fn apply_runs_the_rules_for_one_cluster() {
    let replicas = |value: i64| json!({"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": value}]}});
    let mut bad_image = deployment();
    bad_image["spec"]["template"]["spec"]["containers"][0]["image"] = json!("Bad:Image");
    let mut with_init = deployment();
    with_init["spec"]["template"]["spec"]["initContainers"] =
        json!([{"name": "init", "image": "busybox"}]);
    let image_rules = json!({"overriders": {"imageOverrider": [
        {"component": "Tag", "operator": "replace", "value": "v2"},
        {"predicate": {"path": "/spec/template/spec/containers/3/image"}, "component": "Tag", "operator": "replace", "value": "v2"}
    ]}});
    let targeted = json!({"overrideRules": [
        {"targetCluster": {"clusterNames": ["m1"]}, "overriders": {"labelsOverrider": [{"operator": "add", "value": {"at": "m1"}}]}},
        {"targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}}, "overriders": {"labelsOverrider": [{"operator": "add", "value": {"env": "prod"}}]}},
        {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"all": "yes"}}]}}
    ]});
    let deprecated = json!({
        "targetCluster": {"clusterNames": ["m1"]},
        "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 3}]}
    });
    let cases = [
        ApplyCase {
            name: "the more specific policy is applied last and wins",
            policies: vec![
                (
                    "a-specific",
                    Some("default"),
                    json!({"resourceSelectors": by_name(), "overriders": replicas(5)["overriders"]}),
                ),
                ("z-general", Some("default"), replicas(2)),
            ],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
                    "spec": {"replicas": 5, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19"}]}}}
                }),
                annotations: &[(
                    APPLIED_OVERRIDES,
                    r#"[{"policyName":"a-specific","overriders":{"plaintext":[{"path":"/spec/replicas","operator":"replace","value":5}]}},{"policyName":"z-general","overriders":{"plaintext":[{"path":"/spec/replicas","operator":"replace","value":2}]}}]"#,
                )],
                explain: &[
                    "OverridePolicy `default/z-general` rule 0 plaintext[0]: `/spec/replicas` `1` → `2`",
                    "OverridePolicy `default/a-specific` rule 0 plaintext[0]: `/spec/replicas` `2` → `5`",
                ],
            },
        },
        ApplyCase {
            // Each later overrider observes what the earlier ones did.
            name: "a rule's overriders run image, command, args, labels, annotations, field, plaintext",
            policies: vec![(
                "p",
                None,
                json!({"overrideRules": [{"overriders": {
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
                }}]}),
            )],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {
                        "name": "nginx",
                        "namespace": "default",
                        "labels": {"app": "relabelled"},
                        "annotations": {"cfg": "{\"v\":2}", "seen-image": "done"}
                    },
                    "spec": {"replicas": 1, "template": {"spec": {"containers": [
                        {"name": "nginx", "image": "r.io/nginx:1.19", "command": ["nginx"], "args": ["--b"]}
                    ]}}}
                }),
                annotations: &[(
                    APPLIED_CLUSTER_OVERRIDES,
                    r#"[{"policyName":"p","overriders":{"plaintext":[{"path":"/metadata/annotations/seen-image","operator":"add","value":"placeholder"},{"path":"/metadata/annotations/seen-image","operator":"replace","value":"done"}],"imageOverrider":[{"component":"Registry","operator":"replace","value":"r.io"}],"commandOverrider":[{"containerName":"nginx","operator":"add","value":["nginx"]}],"argsOverrider":[{"containerName":"nginx","operator":"add","value":["--b"]}],"labelsOverrider":[{"operator":"replace","value":{"app":"relabelled"}}],"annotationsOverrider":[{"operator":"add","value":{"cfg":"{\"v\":1}"}}],"fieldOverrider":[{"fieldPath":"/metadata/annotations/cfg","json":[{"subPath":"/v","operator":"replace","value":2}]}]}}]"#,
                )],
                explain: &[
                    r#"ClusterOverridePolicy `p` rule 0 imageOverrider[0]: `/spec/template/spec/containers/0/image` `"nginx:1.19"` → `"r.io/nginx:1.19"`"#,
                    r#"ClusterOverridePolicy `p` rule 0 commandOverrider[0]: `/spec/template/spec/containers/0/command` (absent) → `["nginx"]`"#,
                    r#"ClusterOverridePolicy `p` rule 0 argsOverrider[0]: `/spec/template/spec/containers/0/args` (absent) → `["--b"]`"#,
                    r#"ClusterOverridePolicy `p` rule 0 labelsOverrider[0]: `/metadata/labels/app` `"nginx"` → `"relabelled"`"#,
                    r#"ClusterOverridePolicy `p` rule 0 annotationsOverrider[0]: `/metadata/annotations/cfg` (absent) → `"{\"v\":1}"`"#,
                    r#"ClusterOverridePolicy `p` rule 0 fieldOverrider[0]: `/metadata/annotations/cfg` `"{\"v\":1}"` → `"{\"v\":2}"`"#,
                    r#"ClusterOverridePolicy `p` rule 0 plaintext[0]: `/metadata/annotations/seen-image` (absent) → `"placeholder"`"#,
                    r#"ClusterOverridePolicy `p` rule 0 plaintext[1]: `/metadata/annotations/seen-image` `"placeholder"` → `"done"`"#,
                ],
            },
        },
        ApplyCase {
            name: "rules for the cluster's name and for everyone apply",
            policies: vec![("p", Some("default"), targeted.clone())],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx", "at": "m1", "all": "yes"}},
                    "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19"}]}}}
                }),
                annotations: &[(
                    APPLIED_OVERRIDES,
                    r#"[{"policyName":"p","overriders":{"labelsOverrider":[{"operator":"add","value":{"at":"m1"}}]}},{"policyName":"p","overriders":{"labelsOverrider":[{"operator":"add","value":{"all":"yes"}}]}}]"#,
                )],
                explain: &[
                    r#"OverridePolicy `default/p` rule 0 labelsOverrider[0]: `/metadata/labels/at` (absent) → `"m1"`"#,
                    r#"OverridePolicy `default/p` rule 2 labelsOverrider[0]: `/metadata/labels/all` (absent) → `"yes"`"#,
                ],
            },
        },
        ApplyCase {
            name: "rules for the cluster's labels and for everyone apply",
            policies: vec![("p", Some("default"), targeted)],
            object: deployment(),
            cluster: "m2",
            cluster_labels: &[("env", "prod")],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx", "env": "prod", "all": "yes"}},
                    "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19"}]}}}
                }),
                annotations: &[(
                    APPLIED_OVERRIDES,
                    r#"[{"policyName":"p","overriders":{"labelsOverrider":[{"operator":"add","value":{"env":"prod"}}]}},{"policyName":"p","overriders":{"labelsOverrider":[{"operator":"add","value":{"all":"yes"}}]}}]"#,
                )],
                explain: &[
                    r#"OverridePolicy `default/p` rule 1 labelsOverrider[0]: `/metadata/labels/env` (absent) → `"prod"`"#,
                    r#"OverridePolicy `default/p` rule 2 labelsOverrider[0]: `/metadata/labels/all` (absent) → `"yes"`"#,
                ],
            },
        },
        ApplyCase {
            name: "the deprecated single-rule form applies to its target cluster",
            policies: vec![("old", None, deprecated.clone())],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
                    "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19"}]}}}
                }),
                annotations: &[(
                    APPLIED_CLUSTER_OVERRIDES,
                    r#"[{"policyName":"old","overriders":{"plaintext":[{"path":"/spec/replicas","operator":"replace","value":3}]}}]"#,
                )],
                explain: &["ClusterOverridePolicy `old` rule 0 plaintext[0]: `/spec/replicas` `1` → `3`"],
            },
        },
        ApplyCase {
            name: "the deprecated single-rule form leaves other clusters alone",
            policies: vec![("old", None, deprecated)],
            object: deployment(),
            cluster: "m2",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: deployment(),
                annotations: &[],
                explain: &[],
            },
        },
        ApplyCase {
            name: "applied rules are listed by policy name, in rule order",
            policies: vec![
                ("ccc", None, json!({})),
                (
                    "aaa",
                    None,
                    json!({"overrideRules": [
                        {"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 2}]}},
                        {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"b": "<&>", "a": "1"}}]}}
                    ]}),
                ),
                ("bbb", Some("default"), json!({})),
            ],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx", "a": "1", "b": "<&>"}},
                    "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19"}]}}}
                }),
                annotations: &[
                    (
                        APPLIED_CLUSTER_OVERRIDES,
                        concat!(
                            r#"[{"policyName":"aaa","overriders":{"plaintext":[{"path":"/spec/replicas","operator":"replace","value":2}]}},"#,
                            r#"{"policyName":"aaa","overriders":{"labelsOverrider":[{"operator":"add","value":{"a":"1","b":"\u003c\u0026\u003e"}}]}},"#,
                            r#"{"policyName":"ccc","overriders":{}}]"#
                        ),
                    ),
                    (APPLIED_OVERRIDES, r#"[{"policyName":"bbb","overriders":{}}]"#),
                ],
                explain: &[
                    r#"ClusterOverridePolicy `aaa` rule 0 plaintext[0]: `/spec/replicas` `1` → `2`"#,
                    r#"ClusterOverridePolicy `aaa` rule 1 labelsOverrider[0]: `/metadata/labels/a` (absent) → `"1"`; `/metadata/labels/b` (absent) → `"<&>"`"#,
                ],
            },
        },
        ApplyCase {
            name: "a failure aborts everything and names the spot in the policy",
            policies: vec![
                ("good", None, replicas(9)),
                (
                    "bad",
                    Some("default"),
                    json!({"overrideRules": [
                        {"overriders": {}},
                        {"overriders": {"plaintext": [
                            {"path": "/spec/replicas", "operator": "replace", "value": 2},
                            {"path": "/spec/foo", "operator": "replace", "value": 1}
                        ]}}
                    ]}),
                ),
            ],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Refused {
                message: "OverridePolicy `default/bad`: `/spec/overrideRules/1/overriders/plaintext/1/path`: cannot `replace` `/spec/foo`: path does not exist",
                at: (1, "plaintext", 1),
            },
        },
        ApplyCase {
            name: "an image predicate that leads nowhere fails at the predicate",
            policies: vec![("p", None, image_rules.clone())],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Refused {
                message: "ClusterOverridePolicy `p`: `/spec/overriders/imageOverrider/1/predicate/path`: cannot read the image at `/spec/template/spec/containers/3/image`: `3` is not an index of `containers`",
                at: (0, "imageOverrider", 1),
            },
        },
        ApplyCase {
            name: "an image that does not parse fails at its overrider",
            policies: vec![("p", None, image_rules)],
            object: bad_image,
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Refused {
                message: "ClusterOverridePolicy `p`: `/spec/overriders/imageOverrider/0`: cannot parse image `Bad:Image`: repository name must be lowercase",
                at: (0, "imageOverrider", 0),
            },
        },
        ApplyCase {
            name: "an image predicate targets one path",
            policies: vec![(
                "p",
                None,
                json!({"overriders": {"imageOverrider": [
                    {"predicate": {"path": "/spec/template/spec/initContainers/0/image"}, "component": "Registry", "operator": "add", "value": "mirror.io"}
                ]}}),
            )],
            object: with_init,
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
                    "spec": {"replicas": 1, "template": {"spec": {
                        "containers": [{"name": "nginx", "image": "nginx:1.19"}],
                        "initContainers": [{"name": "init", "image": "mirror.io/busybox"}]
                    }}}
                }),
                annotations: &[(
                    APPLIED_CLUSTER_OVERRIDES,
                    r#"[{"policyName":"p","overriders":{"imageOverrider":[{"predicate":{"path":"/spec/template/spec/initContainers/0/image"},"component":"Registry","operator":"add","value":"mirror.io"}]}}]"#,
                )],
                explain: &[
                    r#"ClusterOverridePolicy `p` rule 0 imageOverrider[0]: `/spec/template/spec/initContainers/0/image` `"busybox"` → `"mirror.io/busybox"`"#,
                ],
            },
        },
        ApplyCase {
            name: "removing `kind` is refused, like unstructured decoding",
            policies: vec![(
                "p",
                None,
                json!({"overriders": {"plaintext": [{"path": "/kind", "operator": "remove"}]}}),
            )],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Refused {
                message: "ClusterOverridePolicy `p`: `/spec/overriders/plaintext/0/path`: the result has no `kind`",
                at: (0, "plaintext", 0),
            },
        },
        ApplyCase {
            name: "a plaintext remove keeps the order of the other keys",
            policies: vec![(
                "p",
                None,
                json!({"overriders": {"plaintext": [{"path": "/metadata/namespace", "operator": "remove"}]}}),
            )],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "labels": {"app": "nginx"}},
                    "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19"}]}}}
                }),
                annotations: &[(
                    APPLIED_CLUSTER_OVERRIDES,
                    r#"[{"policyName":"p","overriders":{"plaintext":[{"path":"/metadata/namespace","operator":"remove","value":null}]}}]"#,
                )],
                explain: &[
                    r#"ClusterOverridePolicy `p` rule 0 plaintext[0]: `/metadata/namespace` `"default"` → (absent)"#,
                ],
            },
        },
        ApplyCase {
            name: "the explanation lists paths and values",
            policies: vec![(
                "tags",
                None,
                json!({"overriders": {"imageOverrider": [{"component": "Tag", "operator": "replace", "value": "1.21"}]}}),
            )],
            object: deployment(),
            cluster: "m1",
            cluster_labels: &[],
            outcome: Outcome::Applied {
                object: json!({
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "nginx", "namespace": "default", "labels": {"app": "nginx"}},
                    "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.21"}]}}}
                }),
                annotations: &[(
                    APPLIED_CLUSTER_OVERRIDES,
                    r#"[{"policyName":"tags","overriders":{"imageOverrider":[{"component":"Tag","operator":"replace","value":"1.21"}]}}]"#,
                )],
                explain: &[
                    r#"ClusterOverridePolicy `tags` rule 0 imageOverrider[0]: `/spec/template/spec/containers/0/image` `"nginx:1.19"` → `"nginx:1.21"`"#,
                ],
            },
        },
    ];
    let template_labels = labels(&[("app", "nginx")]);
    let template = TemplateView {
        api_version: "apps/v1",
        kind: "Deployment",
        namespace: Some("default"),
        name: "nginx",
        labels: &template_labels,
    };
    for case in cases {
        let specs: Vec<OverrideSpec> = case.policies.iter().map(|p| spec(p.2.clone())).collect();
        let policies: Vec<OverridePolicyRef<'_>> = case
            .policies
            .iter()
            .zip(&specs)
            .map(|((name, namespace, _), spec)| OverridePolicyRef {
                name,
                namespace: *namespace,
                spec,
            })
            .collect();
        let ordered = applicable(&policies, &template);
        let cluster_labels = labels(case.cluster_labels);
        let mut object = case.object.clone();
        let ordered: Vec<OverridePolicyRef<'_>> = ordered.into_iter().copied().collect();
        let result = apply_staged(
            &mut object,
            &ordered,
            &cluster(case.cluster, &cluster_labels),
        );
        let name = case.name;
        match (result, case.outcome) {
            (
                Ok(applied),
                Outcome::Applied {
                    object: expected,
                    annotations,
                    explain,
                },
            ) => {
                assert_eq!(object.to_string(), expected.to_string(), "{name}");
                let annotations: Vec<(String, String)> = annotations
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                assert_eq!(applied.annotations(), annotations, "{name}");
                assert_eq!(applied.explain(), explain, "{name}");
            }
            (Err(error), Outcome::Refused { message, at }) => {
                assert_eq!(error.to_string(), message, "{name}");
                assert_eq!((error.rule, error.overrider, error.item), at, "{name}");
                assert_eq!(
                    object, case.object,
                    "{name}: the object must be left as it was"
                );
            }
            (Ok(applied), Outcome::Refused { .. }) => {
                panic!(
                    "{name}: applied, expected a refusal: {:?}",
                    applied.explain()
                )
            }
            (Err(error), Outcome::Applied { .. }) => panic!("{name}: refused: {error}"),
        }
    }
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
        let applied = apply_staged(&mut object, &[policy], &cluster("m2", &labels)).unwrap();
        prop_assert_eq!(&object, &before);
        prop_assert!(applied.cluster.is_empty() && applied.steps.is_empty());
    }
}

/// Karmada's override manager matches the namespaced policies against the
/// object the cluster policies left (`applyNamespacedOverrides` after
/// `applyClusterOverrides`, both on the same object): a cluster policy that
/// relabels the object turns off a namespaced policy selecting the old label
/// and turns on one selecting the new one. Found by the differential test.
#[test]
fn namespaced_policies_select_what_the_cluster_policies_left() {
    let relabel = spec(
        json!({"overrideRules": [{"overriders": {"labelsOverrider": [{"operator": "replace", "value": {"app": "renamed"}}]}}]}),
    );
    let by_old = spec(json!({
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "nginx"}}}],
        "overrideRules": [{"overriders": {"annotationsOverrider": [{"operator": "add", "value": {"old": "yes"}}]}}],
    }));
    let by_new = spec(json!({
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "renamed"}}}],
        "overrideRules": [{"overriders": {"annotationsOverrider": [{"operator": "add", "value": {"new": "yes"}}]}}],
    }));
    assert!(crate::overrides::may_reselect(&relabel));
    assert!(!crate::overrides::may_reselect(&by_old));
    let candidates = [
        OverridePolicyRef {
            name: "old",
            namespace: Some("default"),
            spec: &by_old,
        },
        OverridePolicyRef {
            name: "new",
            namespace: Some("default"),
            spec: &by_new,
        },
        OverridePolicyRef {
            name: "relabel",
            namespace: None,
            spec: &relabel,
        },
    ];
    let no_labels = Labels::new();
    let mut object = deployment();
    let applied = apply_staged(&mut object, &candidates, &cluster("m1", &no_labels)).unwrap();
    assert_eq!(object["metadata"]["labels"]["app"], "renamed");
    assert_eq!(object["metadata"]["annotations"], json!({"new": "yes"}));
    let names: Vec<&str> = applied
        .cluster
        .iter()
        .chain(&applied.namespaced)
        .map(|a| a.policy_name.as_str())
        .collect();
    assert_eq!(names, ["relabel", "new"]);
}
