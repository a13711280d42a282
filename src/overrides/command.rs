//! `commandOverrider` / `argsOverrider`: edit a container's `command` or `args` list.
//!
//! Reproduces Karmada's `commandargsoverride.go`: same kinds and container
//! lists as the image overrider (Pod `/spec/containers`, workloads
//! `/spec/template/spec/containers`, other kinds untouched); every container
//! whose `name` equals `containerName` is changed. `add` appends the values,
//! `remove` drops every element equal to one of them. When the field is
//! absent (or null) it is created with an `add` of the result computed from
//! an empty list — so `remove` on a missing field creates an empty list.
//!
//! The containers are read the way Karmada v1.19 reads them
//! (`pkg/util/overridemanager/commandargsoverride.go`, through
//! `unstructured.NestedSlice`), which differs from the image overrider
//! (see `image.rs`): a missing `spec`, `template` or `containers`, or a
//! `null` on the way to `containers`, means there is nothing to change, and
//! an empty list too; but `containers: null` is an error, as is a
//! `containers` that is not a list or a map on the way that is not a map.
//! A container that is not a map or whose field is not a list is an error
//! here; Karmada's type assertions panic on them.

use super::image::pod_spec_prefix;
use super::patch::{OpKind, PatchOp};
use crate::model::override_policy::{CommandArgsOperator, CommandArgsOverrider};
use serde_json::Value;

/// Why a command or args overrider cannot read the object's containers;
/// `prefix` is the pod spec's JSON pointer (`/spec/template/spec`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandArgsError {
    /// `spec` or `template` on the way to the containers is not a map.
    #[error("`{prefix}`: `{field}` is not a map")]
    FieldNotAMap {
        prefix: &'static str,
        field: &'static str,
    },
    #[error("`{prefix}/containers` is not a list")]
    ContainersNotAList { prefix: &'static str },
    #[error("`{prefix}/containers/{index}` is not a map")]
    ContainerNotAMap { prefix: &'static str, index: usize },
    /// The container's `command` or `args` is not a list.
    #[error("`{prefix}/containers/{index}/{field}` is not a list")]
    NotAList {
        prefix: &'static str,
        index: usize,
        field: &'static str,
    },
    #[error("`{prefix}/containers/{index}/{field}` is not a list of strings")]
    NotAListOfStrings {
        prefix: &'static str,
        index: usize,
        field: &'static str,
    },
}

/// Which list a [`CommandArgsOverrider`] edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Command,
    Args,
}

impl Target {
    fn field(self) -> &'static str {
        match self {
            Target::Command => "command",
            Target::Args => "args",
        }
    }
}

/// The patch for one overrider against the current object.
pub fn command_args_patch(
    object: &Value,
    target: Target,
    overrider: &CommandArgsOverrider,
) -> Result<Vec<PatchOp>, CommandArgsError> {
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(prefix) = pod_spec_prefix(kind) else {
        return Ok(Vec::new());
    };
    let mut current = object;
    for key in prefix.split('/').skip(1) {
        current = match current.get(key) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(v @ Value::Object(_)) => v,
            Some(_) => return Err(CommandArgsError::FieldNotAMap { prefix, field: key }),
        };
    }
    let containers = match current.get("containers") {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        // `null` included: NestedSlice finds the field and it is no slice.
        Some(_) => return Err(CommandArgsError::ContainersNotAList { prefix }),
    };
    let field = target.field();
    let mut ops = Vec::new();
    for (i, container) in containers.iter().enumerate() {
        let Value::Object(container) = container else {
            return Err(CommandArgsError::ContainerNotAMap { prefix, index: i });
        };
        if container.get("name").and_then(Value::as_str) != Some(overrider.container_name.as_str())
        {
            continue;
        }
        let path = format!("{prefix}/containers/{i}/{field}");
        let (op, current) = match container.get(field) {
            None | Some(Value::Null) => (OpKind::Add, Vec::new()),
            Some(Value::Array(items)) => {
                let strings = items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<String>>>()
                    .ok_or(CommandArgsError::NotAListOfStrings {
                        prefix,
                        index: i,
                        field,
                    })?;
                (OpKind::Replace, strings)
            }
            Some(_) => {
                return Err(CommandArgsError::NotAList {
                    prefix,
                    index: i,
                    field,
                })
            }
        };
        let new: Vec<String> = match overrider.operator {
            CommandArgsOperator::Add => current
                .into_iter()
                .chain(overrider.value.iter().cloned())
                .collect(),
            CommandArgsOperator::Remove => current
                .into_iter()
                .filter(|v| !overrider.value.contains(v))
                .collect(),
        };
        ops.push(PatchOp {
            op,
            path,
            value: Some(Value::from(new)),
        });
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn overrider(operator: CommandArgsOperator, value: &[&str]) -> CommandArgsOverrider {
        CommandArgsOverrider {
            container_name: "nginx".into(),
            operator,
            value: value.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn deployment(containers: Value) -> Value {
        json!({"kind": "Deployment", "spec": {"template": {"spec": {"containers": containers}}}})
    }

    #[test]
    fn add_appends_to_an_existing_command() {
        let object = deployment(json!([{"name": "nginx", "command": ["nginx", "-v"]}]));
        let ops = command_args_patch(
            &object,
            Target::Command,
            &overrider(CommandArgsOperator::Add, &["-t"]),
        )
        .unwrap();
        assert_eq!(
            ops,
            vec![PatchOp {
                op: OpKind::Replace,
                path: "/spec/template/spec/containers/0/command".into(),
                value: Some(json!(["nginx", "-v", "-t"]))
            }]
        );
    }

    #[test]
    fn remove_drops_every_equal_element() {
        let object = deployment(json!([{"name": "nginx", "args": ["-a", "-b", "-a", "-c"]}]));
        let ops = command_args_patch(
            &object,
            Target::Args,
            &overrider(CommandArgsOperator::Remove, &["-a", "-c"]),
        )
        .unwrap();
        assert_eq!(ops[0].value, Some(json!(["-b"])));
        assert_eq!(ops[0].path, "/spec/template/spec/containers/0/args");
    }

    #[test]
    fn absent_field_is_created_with_add() {
        let object = json!({"kind": "Pod", "spec": {"containers": [{"name": "nginx"}]}});
        let ops = command_args_patch(
            &object,
            Target::Args,
            &overrider(CommandArgsOperator::Add, &["--x"]),
        )
        .unwrap();
        assert_eq!(
            ops,
            vec![PatchOp {
                op: OpKind::Add,
                path: "/spec/containers/0/args".into(),
                value: Some(json!(["--x"]))
            }]
        );
        let ops = command_args_patch(
            &object,
            Target::Args,
            &overrider(CommandArgsOperator::Remove, &["--x"]),
        )
        .unwrap();
        assert_eq!(ops[0].value, Some(json!([])));
        assert_eq!(ops[0].op, OpKind::Add);
    }

    #[test]
    fn every_container_with_the_name_is_changed_and_others_are_not() {
        let object = deployment(json!([
            {"name": "nginx", "command": ["a"]},
            {"name": "sidecar", "command": ["b"]},
            {"name": "nginx"}
        ]));
        let ops = command_args_patch(
            &object,
            Target::Command,
            &overrider(CommandArgsOperator::Add, &["c"]),
        )
        .unwrap();
        let paths: Vec<&str> = ops.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "/spec/template/spec/containers/0/command",
                "/spec/template/spec/containers/2/command"
            ]
        );
    }

    #[test]
    fn init_containers_and_other_kinds_are_ignored() {
        let object = json!({"kind": "Deployment", "spec": {"template": {"spec": {"initContainers": [{"name": "nginx"}]}}}});
        assert!(command_args_patch(
            &object,
            Target::Command,
            &overrider(CommandArgsOperator::Add, &["c"])
        )
        .unwrap()
        .is_empty());
        let object = json!({"kind": "CronJob", "spec": {"template": {"spec": {"containers": [{"name": "nginx"}]}}}});
        assert!(command_args_patch(
            &object,
            Target::Command,
            &overrider(CommandArgsOperator::Add, &["c"])
        )
        .unwrap()
        .is_empty());
    }

    /// Every shape of the containers list, read as Karmada's
    /// `unstructured.NestedSlice` reads it.
    #[test]
    fn containers_are_read_like_nested_slice() {
        const TEMPLATE: &str = "/spec/template/spec";
        let add = overrider(CommandArgsOperator::Add, &["-v"]);
        let op = |op: OpKind, path: &str, value: Value| {
            Ok(vec![PatchOp {
                op,
                path: path.into(),
                value: Some(value),
            }])
        };
        type Case = (&'static str, Value, Result<Vec<PatchOp>, CommandArgsError>);
        let cases: Vec<Case> = vec![
            ("no spec", json!({"kind": "Deployment"}), Ok(Vec::new())),
            (
                "no containers",
                json!({"kind": "Deployment", "spec": {"template": {"spec": {}}}}),
                Ok(Vec::new()),
            ),
            (
                "null spec",
                json!({"kind": "Deployment", "spec": null}),
                Ok(Vec::new()),
            ),
            (
                "null template",
                json!({"kind": "Deployment", "spec": {"template": null}}),
                Ok(Vec::new()),
            ),
            (
                "null pod spec",
                json!({"kind": "Deployment", "spec": {"template": {"spec": null}}}),
                Ok(Vec::new()),
            ),
            (
                "null containers",
                deployment(Value::Null),
                Err(CommandArgsError::ContainersNotAList { prefix: TEMPLATE }),
            ),
            ("empty containers", deployment(json!([])), Ok(Vec::new())),
            (
                "containers is a map",
                deployment(json!({"name": "nginx"})),
                Err(CommandArgsError::ContainersNotAList { prefix: TEMPLATE }),
            ),
            (
                "containers is a string",
                deployment(json!("nginx")),
                Err(CommandArgsError::ContainersNotAList { prefix: TEMPLATE }),
            ),
            (
                "template is not a map",
                json!({"kind": "Deployment", "spec": {"template": 1}}),
                Err(CommandArgsError::FieldNotAMap {
                    prefix: TEMPLATE,
                    field: "template",
                }),
            ),
            (
                "one container",
                deployment(json!([{"name": "nginx"}])),
                op(
                    OpKind::Add,
                    "/spec/template/spec/containers/0/command",
                    json!(["-v"]),
                ),
            ),
            (
                "a null container",
                deployment(json!([null])),
                Err(CommandArgsError::ContainerNotAMap {
                    prefix: TEMPLATE,
                    index: 0,
                }),
            ),
            (
                "Pod with null containers",
                json!({"kind": "Pod", "spec": {"containers": null}}),
                Err(CommandArgsError::ContainersNotAList { prefix: "/spec" }),
            ),
            (
                "Pod with one container",
                json!({"kind": "Pod", "spec": {"containers": [{"name": "nginx", "command": ["a"]}]}}),
                op(
                    OpKind::Replace,
                    "/spec/containers/0/command",
                    json!(["a", "-v"]),
                ),
            ),
        ];
        for (case, object, expected) in cases {
            assert_eq!(
                command_args_patch(&object, Target::Command, &add),
                expected,
                "{case}"
            );
        }
    }

    #[test]
    fn malformed_containers_are_errors() {
        let object = deployment(json!({"name": "nginx"}));
        assert!(command_args_patch(
            &object,
            Target::Command,
            &overrider(CommandArgsOperator::Add, &["c"])
        )
        .is_err());
        let object = deployment(json!([{"name": "nginx", "command": [1]}]));
        assert!(command_args_patch(
            &object,
            Target::Command,
            &overrider(CommandArgsOperator::Add, &["c"])
        )
        .is_err());
    }
}
