//! The `kube` helper library customizations load with `require("kube")`,
//! reimplemented after Karmada's `luavm/kube.go` on garrison's own
//! quantity parser, requirement and dependency logic (karmada-semantics §f).
//!
//! - `resourceAdd(q1, q2, ...)`: the sum of quantities (nil counts as 0), as
//!   a canonical quantity string.
//! - `accuratePodRequirements(podTemplate)`: a ReplicaRequirements table
//!   (`nodeClaim` with `nodeSelector`, `tolerations`, `hardNodeAffinity`;
//!   `resourceRequest`), or nil when there is neither.
//! - `getPodDependencies(podTemplate, namespace)`: the ConfigMaps, Secrets,
//!   ServiceAccount and PVCs the pod template references, as
//!   `{apiVersion, kind, namespace, name}` (namespace nil means `default`).
//! - `getResourceQuantity(q)`: a quantity as a (float) number.

use super::convert::{from_lua, to_json, to_lua, Empties};
use crate::model::quantity::{approximate_float64, parse_quantity};
use crate::schedule::estimate::requirements_from_pod_spec;
use mlua::{Lua, Table, Value as LuaValue};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// The `kube` module table: the four helpers listed above and nothing else.
pub fn library(lua: &Lua) -> mlua::Result<Table> {
    let kube = lua.create_table()?;
    kube.raw_set("resourceAdd", lua.create_function(resource_add)?)?;
    kube.raw_set(
        "getResourceQuantity",
        lua.create_function(get_resource_quantity)?,
    )?;
    kube.raw_set(
        "accuratePodRequirements",
        lua.create_function(accurate_pod_requirements)?,
    )?;
    kube.raw_set(
        "getPodDependencies",
        lua.create_function(get_pod_dependencies)?,
    )?;
    Ok(kube)
}

/// `kube.resourceAdd`: the sum of its quantity arguments, printed in binary
/// form when the first non-zero one ends in `i` (`Mi`, `Gi`, ...).
fn resource_add(_: &Lua, args: mlua::MultiValue) -> mlua::Result<String> {
    let mut total: i128 = 0;
    let mut binary = None;
    for (i, arg) in args.iter().enumerate() {
        let Some(text) = quantity_arg(arg, i + 1, "resourceAdd")? else {
            continue;
        };
        let quantity = parse_quantity(&text).map_err(mlua::Error::runtime)?;
        if binary.is_none() && quantity.nanos() != 0 {
            binary = Some(text.ends_with('i'));
        }
        total += quantity.nanos();
    }
    Ok(format_quantity(total, binary.unwrap_or(false)))
}

/// `kube.getResourceQuantity`: one quantity (nil is 0) as Go's approximate
/// float; a negative or infinite one is an error, as in Karmada.
fn get_resource_quantity(_: &Lua, args: mlua::MultiValue) -> mlua::Result<f64> {
    if args.len() != 1 {
        return Err(mlua::Error::runtime(
            "getResourceQuantity only accepts one argument",
        ));
    }
    let number = match args
        .front()
        .map(|a| quantity_arg(a, 1, "getResourceQuantity"))
    {
        Some(Ok(Some(text))) => {
            parse_quantity(&text).map_err(mlua::Error::runtime)?;
            approximate_float64(&text).unwrap_or_default()
        }
        Some(Err(e)) => return Err(e),
        _ => 0.0,
    };
    if number < 0.0 {
        return Err(mlua::Error::runtime(
            "getResourceQuantity: the quantity is negative",
        ));
    }
    if number.is_infinite() {
        return Err(mlua::Error::runtime(
            "getResourceQuantity: the quantity is too large for a number",
        ));
    }
    Ok(number)
}

/// `kube.accuratePodRequirements`: [`pod_requirements`] of one pod template
/// table, nil when it asks nothing.
fn accurate_pod_requirements(lua: &Lua, args: mlua::MultiValue) -> mlua::Result<LuaValue> {
    if args.len() != 1 {
        return Err(mlua::Error::runtime(
            "accuratePodRequirements only accepts one argument",
        ));
    }
    let template = table_arg(args.front(), "accuratePodRequirements")?;
    match pod_requirements(&template) {
        Some(requirements) => to_lua(lua, &requirements, 0),
        None => Ok(LuaValue::Nil),
    }
}

/// `kube.getPodDependencies`: [`pod_dependencies`] of a pod template table
/// in a namespace; it takes exactly two arguments, as Karmada's does.
fn get_pod_dependencies(lua: &Lua, args: mlua::MultiValue) -> mlua::Result<LuaValue> {
    if args.len() != 2 {
        return Err(mlua::Error::runtime(
            "getPodDependencies only accepts two argument",
        ));
    }
    let template = table_arg(args.front(), "getPodDependencies")?;
    let namespace = namespace_arg(args.get(1))?;
    to_lua(lua, &pod_dependencies(&template, &namespace), 0)
}

/// The namespace argument of `getPodDependencies`: a string, or a number
/// taken as its text; nil means `default`.
fn namespace_arg(arg: Option<&LuaValue>) -> mlua::Result<String> {
    match arg {
        Some(LuaValue::String(s)) => Ok(s.to_string_lossy()),
        Some(LuaValue::Number(n)) => Ok(n.to_string()),
        Some(LuaValue::Integer(n)) => Ok(n.to_string()),
        Some(LuaValue::Nil) | None => Ok("default".to_string()),
        Some(other) => Err(mlua::Error::runtime(format!(
            "getPodDependencies: namespace must be a string, not a {}",
            other.type_name()
        ))),
    }
}

fn quantity_arg(arg: &LuaValue, position: usize, function: &str) -> mlua::Result<Option<String>> {
    match arg {
        LuaValue::Nil => Ok(None),
        LuaValue::String(s) => Ok(Some(s.to_string_lossy().trim().to_string())),
        other => Err(mlua::Error::runtime(format!(
            "{function}: argument #{position} must be a quantity string, not a {}",
            other.type_name()
        ))),
    }
}

/// A pod template argument, as Karmada reads it: the table converted as
/// any result is, then decoded into a `PodTemplateSpec`, which fails on a
/// field of the wrong type (`ConvertLuaResultInto`, then `RaiseError`).
fn table_arg(arg: Option<&LuaValue>, function: &str) -> mlua::Result<Value> {
    match arg {
        Some(value @ LuaValue::Table(_)) => {
            let returned = from_lua(value, 0).map_err(mlua::Error::runtime)?;
            let template =
                to_json(&returned, None, &Empties::default()).map_err(mlua::Error::runtime)?;
            let quantity = |text: &str| {
                crate::model::quantity::parse_quantity(text)
                    .err()
                    .map(|e| e.to_string())
            };
            match crate::schema::decode::pod_template_spec_fault(&template, quantity) {
                Some(fault) => Err(mlua::Error::runtime(format!(
                    "{function}: the argument is not a pod template: {fault}"
                ))),
                None => Ok(template),
            }
        }
        other => Err(mlua::Error::runtime(format!(
            "{function}: the pod template must be a table, not a {}",
            other.map_or("nil", LuaValue::type_name)
        ))),
    }
}

/// Karmada's `GenerateReplicaRequirements` for a pod template, as JSON.
pub fn pod_requirements(template: &Value) -> Option<Value> {
    let spec = template.get("spec").cloned().unwrap_or(Value::Null);
    let mut node_claim = Map::new();
    if let Some(affinity) = spec
        .pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution")
        .filter(|v| !v.is_null())
    {
        node_claim.insert("hardNodeAffinity".into(), affinity.clone());
    }
    if let Some(selector) = spec.get("nodeSelector").filter(|v| !v.is_null()) {
        node_claim.insert("nodeSelector".into(), selector.clone());
    }
    if let Some(tolerations) = spec
        .get("tolerations")
        .filter(|v| v.as_array().is_some_and(|a| !a.is_empty()))
    {
        node_claim.insert("tolerations".into(), tolerations.clone());
    }
    let requests: Map<String, Value> = requirements_from_pod_spec(&spec)
        .map(|r| {
            r.resource_request
                .into_iter()
                .map(|(name, quantity)| {
                    let binary = name == "memory" || name == "ephemeral-storage";
                    (
                        name,
                        Value::String(format_quantity(quantity.nanos(), binary)),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if node_claim.is_empty() && requests.is_empty() {
        return None;
    }
    let mut result = Map::new();
    if !node_claim.is_empty() {
        result.insert("nodeClaim".into(), Value::Object(node_claim));
    }
    if !requests.is_empty() {
        result.insert("resourceRequest".into(), Value::Object(requests));
    }
    Some(Value::Object(result))
}

/// Karmada's `GetDependenciesFromPodTemplate`, as a list of references.
pub fn pod_dependencies(template: &Value, namespace: &str) -> Value {
    let spec = template.get("spec").cloned().unwrap_or(Value::Null);
    let dependencies = super::pod_dependencies(&spec, &BTreeSet::new());
    Value::Array(
        dependencies
            .into_iter()
            .filter_map(|d| match d.target {
                super::Target::Name(name) => Some(
                    json!({"apiVersion": d.api_version, "kind": d.kind, "namespace": namespace, "name": name}),
                ),
                super::Target::Labels(_) => None,
            })
            .collect(),
    )
}

/// A quantity in canonical form: the largest suffix that keeps it exact
/// (binary suffixes when `binary` and it is whole), as Kubernetes prints it.
pub fn format_quantity(nanos: i128, binary: bool) -> String {
    if nanos == 0 {
        return "0".into();
    }
    let sign = if nanos < 0 { "-" } else { "" };
    let magnitude = nanos.abs();
    const NANO: i128 = 1_000_000_000;
    if binary && magnitude % NANO == 0 {
        let units = magnitude / NANO;
        for (shift, suffix) in [
            (60, "Ei"),
            (50, "Pi"),
            (40, "Ti"),
            (30, "Gi"),
            (20, "Mi"),
            (10, "Ki"),
        ] {
            if units % (1i128 << shift) == 0 {
                return format!("{sign}{}{suffix}", units >> shift);
            }
        }
        return format!("{sign}{units}");
    }
    let mut scale = 1_000_000_000_000_000_000_000_000_000i128; // 10^27 nanos = 10^18 units
    for suffix in ["E", "P", "T", "G", "M", "k", "", "m", "u", "n"] {
        if magnitude % scale == 0 {
            return format!("{sign}{}{suffix}", magnitude / scale);
        }
        scale /= 1000;
    }
    format!("{sign}{magnitude}n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interpret::lua::{call, Arg, Limits, Returned};

    fn run(script: &str, arg: &Value) -> Value {
        match call(
            "kube-test",
            script,
            "F",
            &[Arg::Json(arg)],
            1,
            &Limits::default(),
        ) {
            Ok(values) => to_json(&values[0], None, &Empties::default()).unwrap_or(Value::Null),
            Err(fault) => panic!("{fault:?}"),
        }
    }

    #[test]
    fn quantities_format_canonically() {
        assert_eq!(format_quantity(300_000_000, false), "300m");
        assert_eq!(format_quantity(2_000_000_000, false), "2");
        assert_eq!(format_quantity(1_500_000_000_000, false), "1500");
        assert_eq!(format_quantity((2i128 << 30) * 1_000_000_000, true), "2Gi");
        assert_eq!(format_quantity(1000 * 1_000_000_000, true), "1000");
        assert_eq!(format_quantity(3_000_000_000_000, false), "3k");
    }

    #[test]
    fn resource_add_sums_with_nil() {
        let script = r#"local kube = require("kube")
function F(o) return {cpu = kube.resourceAdd("100m", nil, "0.2"), mem = kube.resourceAdd("1Gi", "512Mi"), n = kube.getResourceQuantity("1500m")} end"#;
        assert_eq!(
            run(script, &json!({})),
            json!({"cpu": "300m", "mem": "1536Mi", "n": 1.5})
        );
    }

    /// Karmada's `getResourceQuantity` raises on a quantity whose float is
    /// negative or infinite (`1e400` is an exact Go quantity, 1 × 10^400).
    #[test]
    fn resource_quantity_refuses_negative_and_infinite() {
        for (text, reason) in [("-1", "negative"), ("1e400", "too large")] {
            let script = format!(
                r#"local kube = require("kube") function F() return kube.getResourceQuantity("{text}") end"#
            );
            match call("t", &script, "F", &[], 1, &Limits::default()) {
                Err(fault) => assert!(format!("{fault:?}").contains(reason), "{text}: {fault:?}"),
                Ok(values) => panic!("{text}: returned {values:?}"),
            }
        }
        let script = r#"local kube = require("kube") function F() return kube.getResourceQuantity("100E") end"#;
        assert_eq!(
            call("t", script, "F", &[], 1, &Limits::default()),
            Ok(vec![Returned::Number(1e20)])
        );
    }

    #[test]
    fn resource_add_rejects_bad_quantities() {
        let script =
            r#"local kube = require("kube") function F() return kube.resourceAdd("12xyz") end"#;
        assert!(call("t", script, "F", &[], 1, &Limits::default()).is_err());
    }

    #[test]
    fn accurate_pod_requirements_of_a_template() {
        let template = json!({"spec": {"nodeSelector": {"disk": "ssd"}, "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
            {"name": "b", "resources": {"limits": {"cpu": "1", "memory": "128Mi"}}}]}});
        let script = r#"local kube = require("kube") function F(t) return kube.accuratePodRequirements(t) end"#;
        assert_eq!(
            run(script, &template),
            json!({"nodeClaim": {"nodeSelector": {"disk": "ssd"}}, "resourceRequest": {"cpu": "1250m", "memory": "192Mi"}})
        );
        let call = call(
            "t",
            script,
            "F",
            &[Arg::Json(&json!({"spec": {"containers": [{"name": "a"}]}}))],
            1,
            &Limits::default(),
        );
        assert_eq!(call, Ok(vec![Returned::Nil]));
    }

    /// Karmada decodes the table into a `PodTemplateSpec` and raises when
    /// a field has the wrong type (`accuratePodRequirements`,
    /// `getPodDependencies`).
    #[test]
    fn a_table_that_is_no_pod_template_is_an_error() {
        for script in [
            r#"local kube = require("kube") function F() return kube.accuratePodRequirements({spec = {containers = 'x'}}) end"#,
            r#"local kube = require("kube") function F() return kube.getPodDependencies({spec = 5}, 'shop') end"#,
        ] {
            match call("t", script, "F", &[], 1, &Limits::default()) {
                Err(fault) => assert!(
                    format!("{fault:?}").contains("the argument is not a pod template"),
                    "{fault:?}"
                ),
                Ok(values) => panic!("{script}: returned {values:?}"),
            }
        }
    }

    #[test]
    fn pod_dependencies_of_a_template() {
        let template = json!({"spec": {"serviceAccountName": "sa", "containers": [{"name": "a",
            "envFrom": [{"configMapRef": {"name": "cm"}}]}], "volumes": [{"name": "s", "secret": {"secretName": "tls"}}]}});
        let script = r#"local kube = require("kube") function F(t) return kube.getPodDependencies(t, nil) end"#;
        assert_eq!(
            run(script, &template),
            json!([
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "namespace": "default"},
                {"apiVersion": "v1", "kind": "Secret", "name": "tls", "namespace": "default"},
                {"apiVersion": "v1", "kind": "ServiceAccount", "name": "sa", "namespace": "default"}
            ])
        );
    }
}
