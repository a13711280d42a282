//! The [`Interpreter`]: for each operation, a ResourceInterpreterCustomization's
//! Lua script when one targets the kind, else the built-in interpreter
//! (karmada-semantics §e precedence, §f merging), plus garrison's
//! revise-object hook (SPEC §4).
//!
//! Customizations are taken in name order. For single-function rules
//! (GetReplicas, ReviseReplica, ReviseObject) the first customization that
//! defines the rule for the exact apiVersion and kind wins; dependency
//! scripts of every customization for the kind run and their results are
//! unioned. Every script is compiled and its top level run once when the
//! interpreter is built, so a broken script is an input error before any
//! render; each call then runs in a fresh sandbox (see `lua`).

use super::lua::{self, Arg, ConvertError, Empties, Fault, Limits, Returned};
use super::Replicas;
use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::model::customization::{CustomizationDoc, CustomizationTarget, Rule, ScriptSource};
use crate::model::inputs::Template;
use crate::model::meta::ObjectKey;
use crate::model::quantity::{parse_quantity, Quantity, QuantityError};
use crate::model::selector::{LabelSelector, Labels};
use crate::schedule::estimate::ReplicaRequirements;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The cluster a revise-object hook runs for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookCluster<'a> {
    pub name: &'a str,
    /// The cluster's labels as overrides see them (garrison's virtual labels included).
    pub labels: &'a Labels,
}

/// The fort facts a revise-object hook receives (SPEC §3.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookFort<'a> {
    /// The application's policy opts into fort placement.
    pub enabled: bool,
    /// The fort cluster, when one was chosen.
    pub cluster: Option<&'a str>,
}

/// A customization script that failed.
#[derive(Debug)]
pub struct InterpretError {
    /// `ResourceInterpreterCustomization/<name>`.
    pub customization: String,
    pub rule: Rule,
    /// Where the script is written.
    pub origin: Origin,
    pub fault: ScriptFault,
}

/// What went wrong with a customization script: in Lua, or in what its
/// function returned.
#[derive(Debug, thiserror::Error)]
pub enum ScriptFault {
    #[error(transparent)]
    Lua(#[from] Fault),
    #[error(transparent)]
    Result(#[from] ResultError),
}

/// What a customization function returned that garrison cannot use. The
/// reason of a variant that has one is part of its message (these end up
/// as one-line diagnostics), so it is a field, not a `source`.
#[derive(Debug, thiserror::Error)]
pub enum ResultError {
    #[error("expected the first result (replicas) to be a number, got {found}")]
    ReplicasNotANumber { found: &'static str },
    #[error("the replica count {replicas} is negative or not finite")]
    InvalidReplicas { replicas: f64 },
    #[error("expected the second result (requirements) to be a table or nil, got {found}")]
    RequirementsNotATable { found: &'static str },
    #[error("`resourceRequest` must be a table of quantities")]
    ResourceRequestNotATable,
    #[error("`resourceRequest.{name}` is not a quantity: {value}")]
    NotAQuantity { name: String, value: Box<Value> },
    #[error(transparent)]
    Quantity(#[from] QuantityError),
    #[error("expected the revised object (a table), got {found}")]
    RevisedNotATable { found: &'static str },
    #[error("expected the revised object, got a list")]
    RevisedIsAList,
    /// `field` is `apiVersion`, `kind`, `metadata.name` or `metadata.namespace`.
    #[error("the revised object changes `{field}`; a script may not change an object's identity")]
    IdentityChanged { field: &'static str },
    #[error("expected a list of references, got a {found}")]
    ReferencesNotAList { found: &'static str },
    #[error("expected a list of references, got a table with named fields")]
    ReferencesNamedFields,
    /// `number` counts references from 1, as Lua does.
    #[error("reference #{number} needs `apiVersion` and `kind`")]
    ReferenceWithoutKind { number: usize },
    #[error("reference #{number} needs `name` or `labelSelector`")]
    ReferenceWithoutTarget { number: usize },
    #[error("reference #{number}: invalid `labelSelector`: {reason}")]
    SelectorUnreadable {
        number: usize,
        reason: serde_json::Error,
    },
    /// A selector requirement that Kubernetes refuses (the model's wording).
    #[error("reference #{number}: invalid `labelSelector`: {fault}")]
    InvalidSelector { number: usize, fault: String },
    #[error(transparent)]
    Convert(#[from] ConvertError),
    /// The caller's check of the revised object (against its kind's
    /// schema) failed, for the reason given.
    #[error("{reason}")]
    Refused { reason: String },
}

impl InterpretError {
    pub fn code(&self) -> Code {
        match self.fault {
            ScriptFault::Lua(
                Fault::Load(_) | Fault::Undefined { .. } | Fault::NotAFunction { .. },
            ) => Code::LuaLoadFailed,
            ScriptFault::Lua(Fault::Call(_) | Fault::Convert(_)) | ScriptFault::Result(_) => {
                Code::LuaCallFailed
            }
            ScriptFault::Lua(Fault::Limit(_)) => Code::LuaLimitExceeded,
        }
    }

    /// The diagnostic for this failure while interpreting `app` (for `cluster`).
    pub fn diagnostic(&self, app: &ObjectKey, cluster: Option<&str>) -> Diagnostic {
        let place = cluster.map_or_else(String::new, |c| format!(" for cluster `{c}`"));
        let help = match self.code() {
            Code::LuaLoadFailed => "fix the script; it must compile and define the function at its top level",
            Code::LuaLimitExceeded => "scripts are limited to 64 MiB of memory and, per call, 50 million instructions and 1 s; look for a loop that never ends",
            _ => "fix the script, or the object it is given; the message shows the chunk and line",
        };
        Diagnostic::error(
            self.code(),
            format!(
                "{} `{}` ({}) failed on `{app}`{place}: {}",
                self.customization,
                self.rule.function(),
                self.rule.field(),
                self.fault
            ),
        )
        .at(self.origin)
        .help(help)
    }
}

struct Script {
    customization: String,
    chunk: String,
    source: ScriptSource,
}

/// Every customization's scripts, checked, by target and rule.
#[derive(Default)]
pub struct Interpreter {
    /// (target, rule) → scripts in customization name order.
    scripts: BTreeMap<(String, String, Rule), Vec<Script>>,
    limits: Limits,
}

const RULES: [Rule; 4] = [
    Rule::ReplicaResource,
    Rule::ReplicaRevision,
    Rule::DependencyInterpretation,
    Rule::ReviseObject,
];

impl Interpreter {
    /// Check every script (customizations sorted by name); a script that
    /// does not load is an error diagnostic and is left out.
    pub fn new(customizations: &[CustomizationDoc], diagnostics: &mut Diagnostics) -> Interpreter {
        Interpreter::with_limits(customizations, Limits::default(), diagnostics)
    }

    pub fn with_limits(
        customizations: &[CustomizationDoc],
        limits: Limits,
        diagnostics: &mut Diagnostics,
    ) -> Interpreter {
        let mut interpreter = Interpreter {
            scripts: BTreeMap::new(),
            limits,
        };
        let mut sorted: Vec<&CustomizationDoc> = customizations.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        // The first customization (by name) writing each exclusive rule of
        // a kind: a later one writing it again is refused, as Karmada's
        // webhook refuses the second one stored.
        let mut taken: BTreeMap<(&str, &str, &str), &CustomizationDoc> = BTreeMap::new();
        for customization in sorted {
            let CustomizationTarget { api_version, kind } = &customization.target;
            let mut conflicts = false;
            for (field, origin) in customization.exclusive_rules() {
                match taken.entry((api_version.as_str(), kind.as_str(), field)) {
                    std::collections::btree_map::Entry::Vacant(slot) => {
                        slot.insert(customization);
                    }
                    std::collections::btree_map::Entry::Occupied(first) => {
                        conflicts = true;
                        let first = first.get();
                        diagnostics.push(
                            Diagnostic::error(
                                Code::CustomizationConflict,
                                format!(
                                    "{} writes `{field}` for `{kind}` ({api_version}), which {} writes already: Karmada refuses the second customization",
                                    customization.display(),
                                    first.display()
                                ),
                            )
                            .at(origin)
                            .help(format!(
                                "keep one `{field}` for the kind: delete it from one of the two, or merge the two customizations"
                            )),
                        );
                    }
                }
            }
            if conflicts {
                continue;
            }
            for rule in RULES {
                let Some(source) = customization.script(rule) else {
                    continue;
                };
                let chunk = format!("{}.{}", customization.name, rule.field());
                if let Err(fault) = lua::check(&chunk, &source.text, rule.function(), &limits) {
                    let error = InterpretError {
                        customization: customization.display(),
                        rule,
                        origin: source.origin,
                        fault: ScriptFault::Lua(match fault {
                            Fault::Call(m) => Fault::Load(m),
                            other => other,
                        }),
                    };
                    diagnostics.push(
                        Diagnostic::error(
                            error.code(),
                            format!(
                                "{} `{}` ({}) cannot be loaded: {}",
                                error.customization,
                                rule.function(),
                                rule.field(),
                                error.fault
                            ),
                        )
                        .at(error.origin)
                        .help(format!(
                            "the script must compile as Lua 5.1 and define a global function `{}`",
                            rule.function()
                        )),
                    );
                    continue;
                }
                interpreter
                    .scripts
                    .entry((api_version.clone(), kind.clone(), rule))
                    .or_default()
                    .push(Script {
                        customization: customization.display(),
                        chunk,
                        source,
                    });
            }
        }
        interpreter
    }

    fn scripts(&self, key: &ObjectKey, rule: Rule) -> &[Script] {
        self.scripts
            .get(&(key.api_version.clone(), key.kind.clone(), rule))
            .map_or(&[], Vec::as_slice)
    }

    /// The first customization (by name) defining a single-function rule.
    fn script(&self, key: &ObjectKey, rule: Rule) -> Option<&Script> {
        self.scripts(key, rule).first()
    }

    /// Whether scripts may change `key`'s objects beyond what garrison
    /// checks itself: a ReviseReplica script or the revise-object hook.
    pub fn revises(&self, key: &ObjectKey) -> bool {
        self.script(key, Rule::ReviseObject).is_some()
            || self.script(key, Rule::ReplicaRevision).is_some()
    }

    /// The error to report when what those scripts returned is not a valid
    /// object (`reason` says why), at the script that last changed it.
    pub fn revised_object_error(&self, key: &ObjectKey, reason: String) -> Option<InterpretError> {
        [Rule::ReviseObject, Rule::ReplicaRevision]
            .into_iter()
            .find_map(|rule| {
                self.script(key, rule).map(|script| {
                    fail(
                        script,
                        rule,
                        ResultError::Refused {
                            reason: reason.clone(),
                        },
                    )
                })
            })
    }

    fn run(
        &self,
        script: &Script,
        rule: Rule,
        args: &[Arg<'_>],
        returns: usize,
    ) -> Result<Vec<Returned>, InterpretError> {
        lua::call(
            &script.chunk,
            &script.source.text,
            rule.function(),
            args,
            returns,
            &self.limits,
        )
        .map_err(|fault| fail(script, rule, fault))
    }

    /// Whether a customization of the repository defines `rule` for the kind.
    pub fn defines(&self, key: &ObjectKey, rule: Rule) -> bool {
        self.script(key, rule).is_some()
    }

    /// Whether a customization declares a revise-object hook for the kind.
    pub fn has_revise_object(&self, key: &ObjectKey) -> bool {
        self.script(key, Rule::ReviseObject).is_some()
    }

    /// GetReplicas: the customization's, else the built-in one.
    pub fn replicas(&self, template: &Template) -> Result<Option<Replicas>, InterpretError> {
        let key = &template.key;
        let Some(script) = self.script(key, Rule::ReplicaResource) else {
            return Ok(super::replicas(
                &key.api_version,
                &key.kind,
                &template.value,
            ));
        };
        let rule = Rule::ReplicaResource;
        let returned = self.run(script, rule, &[Arg::Json(&template.value)], 2)?;
        let desired = match returned.first() {
            Some(Returned::Number(n)) if *n >= 0.0 && n.is_finite() => n.trunc() as u64,
            Some(Returned::Number(n)) => {
                return Err(fail(
                    script,
                    rule,
                    ResultError::InvalidReplicas { replicas: *n },
                ))
            }
            other => {
                return Err(fail(
                    script,
                    rule,
                    ResultError::ReplicasNotANumber {
                        found: other.map_or("nothing", Returned::type_name),
                    },
                ))
            }
        };
        let requirements = match returned.get(1) {
            None | Some(Returned::Nil) => None,
            Some(table @ Returned::Table(_)) => {
                let value = lua::to_json(table, None, &Empties::default())
                    .map_err(|e| fail(script, rule, Fault::Convert(e)))?;
                Some(requirements(&value).map_err(|e| fail(script, rule, e))?)
            }
            Some(other) => {
                return Err(fail(
                    script,
                    rule,
                    ResultError::RequirementsNotATable {
                        found: other.type_name(),
                    },
                ))
            }
        };
        Ok(Some(Replicas {
            desired,
            pod_spec: None,
            requirements,
        }))
    }

    /// ReviseReplica: the customization's, else the built-in one.
    pub fn revise_replicas(
        &self,
        key: &ObjectKey,
        object: &mut Value,
        replicas: u64,
    ) -> Result<(), InterpretError> {
        let Some(script) = self.script(key, Rule::ReplicaRevision) else {
            super::revise_replicas(&key.api_version, &key.kind, object, replicas);
            return Ok(());
        };
        let rule = Rule::ReplicaRevision;
        let returned = self.run(
            script,
            rule,
            &[Arg::Json(object), Arg::Number(replicas as f64)],
            1,
        )?;
        *object = revised(&returned, object).map_err(|e| fail(script, rule, e))?;
        Ok(())
    }

    /// garrison's revise-object hook, when a customization declares one;
    /// runs after overrides for every cluster, zero replicas included.
    pub fn revise_object(
        &self,
        key: &ObjectKey,
        object: &mut Value,
        cluster: &HookCluster<'_>,
        replicas: u64,
        fort: &HookFort<'_>,
    ) -> Result<(), InterpretError> {
        let Some(script) = self.script(key, Rule::ReviseObject) else {
            return Ok(());
        };
        let rule = Rule::ReviseObject;
        let mut labels = Map::new();
        for (k, v) in cluster.labels {
            labels.insert(k.clone(), Value::String(v.clone()));
        }
        let mut cluster_table = Map::new();
        cluster_table.insert("name".into(), Value::String(cluster.name.to_string()));
        cluster_table.insert("labels".into(), Value::Object(labels));
        let mut fort_table = Map::new();
        fort_table.insert("enabled".into(), Value::Bool(fort.enabled));
        if let Some(fort_cluster) = fort.cluster {
            fort_table.insert("cluster".into(), Value::String(fort_cluster.to_string()));
        }
        fort_table.insert(
            "isFort".into(),
            Value::Bool(fort.cluster == Some(cluster.name)),
        );
        let cluster_value = Value::Object(cluster_table);
        let fort_value = Value::Object(fort_table);
        let returned = self.run(
            script,
            rule,
            &[
                Arg::Json(object),
                Arg::Json(&cluster_value),
                Arg::Number(replicas as f64),
                Arg::Json(&fort_value),
            ],
            1,
        )?;
        *object = revised(&returned, object).map_err(|e| fail(script, rule, e))?;
        Ok(())
    }

    /// GetDependencies: the union of every customization's script for the
    /// kind (sorted, deduplicated), else the built-in one. Selectors are
    /// resolved against `templates`; a reference without a namespace is
    /// cluster-scoped, as in Karmada's `DependentObjectReference`.
    pub fn dependencies(
        &self,
        template: &Template,
        templates: &[Template],
    ) -> Result<Vec<ObjectKey>, DependenciesError> {
        let key = &template.key;
        let scripts = self.scripts(key, Rule::DependencyInterpretation);
        if scripts.is_empty() {
            let Some(namespace) = &key.namespace else {
                return Ok(Vec::new());
            };
            let dependencies = super::dependencies(&key.api_version, &key.kind, &template.value)
                .map_err(DependenciesError::Unnamed)?;
            return Ok(built_in(dependencies, namespace, templates));
        }
        let rule = Rule::DependencyInterpretation;
        let mut result = BTreeSet::new();
        for script in scripts {
            let returned = self.run(script, rule, &[Arg::Json(&template.value)], 1)?;
            let list = match returned.first() {
                Some(Returned::Nil) | None => Value::Array(Vec::new()),
                Some(table @ Returned::Table(_)) => {
                    let empty = Value::Array(Vec::new());
                    lua::to_json(table, Some(&empty), &Empties::default())
                        .map_err(|e| fail(script, rule, Fault::Convert(e)))?
                }
                Some(other) => {
                    return Err(fail(
                        script,
                        rule,
                        ResultError::ReferencesNotAList {
                            found: other.type_name(),
                        },
                    )
                    .into())
                }
            };
            let references = resolve(&list, templates).map_err(|e| fail(script, rule, e))?;
            result.extend(references);
        }
        Ok(result.into_iter().collect())
    }
}

/// Why a workload's dependencies cannot be told.
#[derive(Debug)]
pub enum DependenciesError {
    /// A customization's script failed.
    Script(InterpretError),
    /// Karmada's native interpreter refuses the list (see [`super::Unnamed`]).
    Unnamed(super::Unnamed),
}

impl From<InterpretError> for DependenciesError {
    fn from(error: InterpretError) -> DependenciesError {
        DependenciesError::Script(error)
    }
}

/// The built-in interpreter's dependencies of a template in `namespace`,
/// as template keys: a name as it is (whether or not the repository has
/// it), labels as every template of the kind in the namespace that has
/// them, in template order, as the dependencies distributor lists them.
fn built_in(
    dependencies: Vec<super::Dependency>,
    namespace: &str,
    templates: &[Template],
) -> Vec<ObjectKey> {
    let mut keys = Vec::new();
    for dependency in dependencies {
        match dependency.target {
            super::Target::Name(name) => keys.push(ObjectKey {
                api_version: dependency.api_version.to_string(),
                kind: dependency.kind.to_string(),
                namespace: Some(namespace.to_string()),
                name,
            }),
            super::Target::Labels(labels) => keys.extend(
                templates
                    .iter()
                    .filter(|t| {
                        t.key.api_version == dependency.api_version
                            && t.key.kind == dependency.kind
                            && t.key.namespace.as_deref() == Some(namespace)
                            && labels.iter().all(|(k, v)| t.labels.get(k) == Some(v))
                    })
                    .map(|t| t.key.clone()),
            ),
        }
    }
    keys
}

fn fail(script: &Script, rule: Rule, fault: impl Into<ScriptFault>) -> InterpretError {
    InterpretError {
        customization: script.customization.clone(),
        rule,
        origin: script.source.origin,
        fault: fault.into(),
    }
}

/// The object a revising function returned, in the input's key order; its
/// identity (apiVersion, kind, name, namespace) must not change.
fn revised(returned: &[Returned], input: &Value) -> Result<Value, ResultError> {
    let table = match returned.first() {
        Some(table @ Returned::Table(_)) => table,
        other => {
            return Err(ResultError::RevisedNotATable {
                found: other.map_or("nothing", Returned::type_name),
            })
        }
    };
    let value = lua::to_json(table, Some(input), &Empties::of(&[input]))?;
    if !value.is_object() {
        return Err(ResultError::RevisedIsAList);
    }
    for (pointer, field) in [
        ("/apiVersion", "apiVersion"),
        ("/kind", "kind"),
        ("/metadata/name", "metadata.name"),
        ("/metadata/namespace", "metadata.namespace"),
    ] {
        if value.pointer(pointer) != input.pointer(pointer) {
            return Err(ResultError::IdentityChanged { field });
        }
    }
    Ok(value)
}

/// A ReplicaRequirements table: its `resourceRequest`, rounded as Karmada's
/// estimator rounds it (CPU in milli-units, the rest in whole units).
fn requirements(value: &Value) -> Result<ReplicaRequirements, ResultError> {
    let mut resource_request = BTreeMap::new();
    if let Some(requests) = value.get("resourceRequest") {
        let Some(requests) = requests.as_object() else {
            return Err(ResultError::ResourceRequestNotATable);
        };
        for (name, amount) in requests {
            let text = match amount {
                Value::String(s) => s.trim().to_string(),
                Value::Number(n) => n.to_string(),
                other => {
                    return Err(ResultError::NotAQuantity {
                        name: name.clone(),
                        value: Box::new(other.clone()),
                    })
                }
            };
            let quantity = parse_quantity(&text)?;
            let rounded = if name == "cpu" {
                Quantity::from_millis(i64::try_from(quantity.milli_value()).unwrap_or(i64::MAX))
            } else {
                Quantity::from_units(i64::try_from(quantity.value()).unwrap_or(i64::MAX))
            };
            if rounded.nanos() > 0 {
                resource_request.insert(name.clone(), rounded);
            }
        }
    }
    Ok(ReplicaRequirements { resource_request })
}

/// Dependency references (`{apiVersion, kind, namespace, name | labelSelector}`)
/// as template keys; a selector names every matching template.
fn resolve(list: &Value, templates: &[Template]) -> Result<Vec<ObjectKey>, ResultError> {
    let Some(items) = list.as_array() else {
        return Err(ResultError::ReferencesNamedFields);
    };
    let mut keys = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = |name: &str| {
            item.get(name)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let number = i + 1;
        let (Some(api_version), Some(kind)) = (field("apiVersion"), field("kind")) else {
            return Err(ResultError::ReferenceWithoutKind { number });
        };
        let namespace = field("namespace").map(str::to_string);
        if let Some(name) = field("name") {
            keys.push(ObjectKey {
                api_version: api_version.to_string(),
                kind: kind.to_string(),
                namespace,
                name: name.to_string(),
            });
            continue;
        }
        let Some(selector) = item.get("labelSelector") else {
            return Err(ResultError::ReferenceWithoutTarget { number });
        };
        let selector: LabelSelector = serde_json::from_value(selector.clone())
            .map_err(|reason| ResultError::SelectorUnreadable { number, reason })?;
        if let Some(fault) = selector.fault() {
            return Err(ResultError::InvalidSelector { number, fault });
        }
        keys.extend(
            templates
                .iter()
                .filter(|t| {
                    t.key.api_version == api_version
                        && t.key.kind == kind
                        && t.key.namespace == namespace
                        && selector.matches(&t.labels)
                })
                .map(|t| t.key.clone()),
        );
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::FileId;
    use crate::load::classify::classify;
    use crate::load::yaml::parse_stream;
    use crate::model::inputs::Inputs;
    use serde_json::json;

    /// Customizations and templates from one YAML stream.
    fn inputs(text: &str) -> (Inputs, Diagnostics) {
        let nodes = match parse_stream(text, &Default::default()) {
            Ok(nodes) => nodes,
            Err(e) => panic!("{e:?}"),
        };
        let mut diagnostics = Diagnostics::default();
        let mut sources = crate::diag::Sources::default();
        sources.add("customizations.yaml".into(), text.into());
        let inputs = classify(
            nodes.into_iter().map(|n| (FileId(0), n)).collect(),
            &sources,
            &mut diagnostics,
        );
        (inputs, diagnostics)
    }

    fn interpreter(text: &str) -> (Interpreter, Inputs) {
        let (inputs, mut diagnostics) = inputs(text);
        let interpreter = Interpreter::new(&inputs.customizations, &mut diagnostics);
        assert!(!diagnostics.has_errors(), "{diagnostics:?}");
        (interpreter, inputs)
    }

    fn template<'a>(inputs: &'a Inputs, kind: &str) -> &'a Template {
        match inputs.templates.iter().find(|t| t.key.kind == kind) {
            Some(t) => t,
            None => panic!("no {kind}"),
        }
    }

    fn text(value: &Value) -> String {
        serde_json::to_string(value).unwrap_or_default()
    }

    const CLONESET: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: declarative-configuration-cloneset
spec:
  target:
    apiVersion: apps.kruise.io/v1alpha1
    kind: CloneSet
  customizations:
    replicaResource:
      luaScript: >
        local kube = require("kube")
        function GetReplicas(obj)
          replica = obj.spec.replicas
          requirement = kube.accuratePodRequirements(obj.spec.template)
          return replica, requirement
        end
    replicaRevision:
      luaScript: >
        function ReviseReplica(obj, desiredReplica)
          obj.spec.replicas = desiredReplica
          if obj.spec.updateStrategy ~= nil and obj.spec.updateStrategy.partition ~= nil then
            if obj.spec.updateStrategy.partition > desiredReplica then
              obj.spec.updateStrategy.partition = desiredReplica
            end
          end
          return obj
        end
    dependencyInterpretation:
      luaScript: >
        local kube = require("kube")
        function GetDependencies(desiredObj)
          refs = kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)
          return refs
        end
    statusReflection:
      luaScript: >
        function ReflectStatus(observedObj) return {} end
---
apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata:
  name: shop
  namespace: web
spec:
  replicas: 6
  updateStrategy:
    partition: 5
    paused: false
  selector: {}
  template:
    spec:
      serviceAccountName: shop
      containers:
      - name: shop
        image: shop:1
        envFrom:
        - configMapRef:
            name: shop-env
        resources:
          requests:
            cpu: 500m
            memory: 1Gi
"#;

    #[test]
    fn cloneset_replicas_and_requirements() {
        let (interpreter, inputs) = interpreter(CLONESET);
        let replicas = interpreter.replicas(template(&inputs, "CloneSet"));
        let replicas = match replicas {
            Ok(Some(r)) => r,
            other => panic!("{other:?}"),
        };
        assert_eq!(replicas.desired, 6);
        let requests = replicas.requirements.map(|r| r.resource_request);
        assert_eq!(
            requests,
            Some(BTreeMap::from([
                ("cpu".to_string(), Quantity::from_millis(500)),
                ("memory".to_string(), Quantity::from_units(1 << 30)),
            ]))
        );
    }

    #[test]
    fn cloneset_revision_caps_the_partition_and_keeps_key_order() {
        let (interpreter, inputs) = interpreter(CLONESET);
        let cloneset = template(&inputs, "CloneSet");
        let mut value = cloneset.value.clone();
        let revised = interpreter.revise_replicas(&cloneset.key, &mut value, 2);
        assert_eq!(revised.map_err(|e| e.fault.to_string()), Ok(()));
        assert_eq!(
            text(&value["spec"]),
            r#"{"replicas":2,"updateStrategy":{"partition":2,"paused":false},"selector":{},"template":{"spec":{"serviceAccountName":"shop","containers":[{"name":"shop","image":"shop:1","envFrom":[{"configMapRef":{"name":"shop-env"}}],"resources":{"requests":{"cpu":"500m","memory":"1Gi"}}}]}}}"#
        );
        let keys: Vec<&String> = value
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec"]);
    }

    #[test]
    fn cloneset_dependencies_through_kube() {
        let (interpreter, inputs) = interpreter(CLONESET);
        let names: Vec<String> = interpreter
            .dependencies(template(&inputs, "CloneSet"), &inputs.templates)
            .unwrap_or_default()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(names, ["ConfigMap/web/shop-env", "ServiceAccount/web/shop"]);
    }

    /// A status rule changes no Work: accepted without a warning.
    #[test]
    fn rules_that_change_no_work_are_accepted_as_they_are() {
        let (_, diagnostics) = inputs(CLONESET);
        assert_eq!(diagnostics.0, Vec::new());
    }

    const ARGO: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: argo-rollout
spec:
  target:
    apiVersion: argoproj.io/v1alpha1
    kind: Rollout
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          local replicas = obj.spec.replicas
          if replicas == nil then replicas = 1 end
          return replicas, nil
        end
    replicaRevision:
      luaScript: |
        function ReviseReplica(obj, desiredReplica)
          obj.spec.replicas = desiredReplica
          return obj
        end
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: canary
  namespace: demo
spec:
  strategy:
    canary:
      steps:
      - setWeight: 20
      - pause: {}
  template:
    spec:
      containers:
      - name: app
        image: app:1
"#;

    #[test]
    fn argo_rollout_defaults_to_one_replica_and_keeps_empty_pause() {
        let (interpreter, inputs) = interpreter(ARGO);
        let rollout = template(&inputs, "Rollout");
        let replicas = interpreter.replicas(rollout).ok().flatten();
        assert_eq!(
            replicas.map(|r| (r.desired, r.requirements)),
            Some((1, None))
        );
        let mut value = rollout.value.clone();
        assert_eq!(
            interpreter
                .revise_replicas(&rollout.key, &mut value, 3)
                .map_err(|e| e.fault.to_string()),
            Ok(())
        );
        assert_eq!(
            text(&value["spec"]),
            r#"{"strategy":{"canary":{"steps":[{"setWeight":20},{"pause":{}}]}},"template":{"spec":{"containers":[{"name":"app","image":"app:1"}]}},"replicas":3}"#
        );
    }

    #[test]
    fn a_kind_without_customization_uses_the_built_in() {
        let (interpreter, _) = interpreter(ARGO);
        let (inputs, _) = inputs("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec: {replicas: 3}\n");
        let deployment = template(&inputs, "Deployment");
        assert_eq!(
            interpreter
                .replicas(deployment)
                .ok()
                .flatten()
                .map(|r| r.desired),
            Some(3)
        );
    }

    const SEED: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: b-kruise-rollout
  annotations:
    garrison.dev/revise-object: |
      function ReviseObject(desiredObj, cluster, replicas, fort)
        local forts = 0
        for _, step in ipairs(desiredObj.spec.strategy.canary.steps) do
          if step.type == "Fort" then
            forts = forts + 1
            if fort.isFort then
              step.properties.pull = tostring(forts > 1)
            else
              step.properties.pull = nil
            end
          end
        end
        desiredObj.metadata.annotations = {cluster = cluster.name, replicas = tostring(replicas),
          fortLabel = cluster.labels["garrison.dev/fort"], fortCluster = fort.cluster}
        return desiredObj
      end
spec:
  target:
    apiVersion: rollouts.kruise.io/v1alpha1
    kind: Rollout
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas
        end
---
apiVersion: rollouts.kruise.io/v1alpha1
kind: Rollout
metadata:
  name: checkout
  namespace: shop
spec:
  replicas: 4
  strategy:
    canary:
      steps:
      - properties: {delay: "-1"}
        type: Fort
      - properties: {delay: "-1"}
        type: Fort
      - properties: {delay: "-1", replicas: 50%}
        type: Batch
"#;

    /// A second customization of the kind writing its rules again.
    const CONFLICTING: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: c-kruise-rollout
spec:
  target:
    apiVersion: rollouts.kruise.io/v1alpha1
    kind: Rollout
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj) return 99 end
    garrisonReviseObject:
      luaScript: |
        function ReviseObject(desiredObj) error("never runs") end
"#;

    fn revise_seed(cluster: &str, fort: Option<&str>, replicas: u64) -> Value {
        let (interpreter, inputs) = interpreter(SEED);
        let rollout = template(&inputs, "Rollout");
        let mut value = rollout.value.clone();
        let labels = Labels::from([(
            "garrison.dev/fort".to_string(),
            (fort == Some(cluster)).to_string(),
        )]);
        let result = interpreter.revise_object(
            &rollout.key,
            &mut value,
            &HookCluster {
                name: cluster,
                labels: &labels,
            },
            replicas,
            &HookFort {
                enabled: true,
                cluster: fort,
            },
        );
        assert_eq!(result.map_err(|e| e.fault.to_string()), Ok(()));
        value
    }

    /// Karmada's webhook refuses a second customization of a kind that
    /// writes a rule again (`validateCustomizationRule`); garrison refuses
    /// the later one by name, at each rule, and runs the first one only.
    #[test]
    fn a_second_customization_writing_a_rule_again_is_refused() {
        let text = format!("{SEED}---{CONFLICTING}");
        let (inputs, mut diagnostics) = inputs(&text);
        let interpreter = Interpreter::new(&inputs.customizations, &mut diagnostics);
        let found: Vec<(Code, String)> = diagnostics
            .0
            .iter()
            .map(|d| (d.code, d.message.clone()))
            .collect();
        assert_eq!(
            found,
            vec![
                (Code::CustomizationConflict, "ResourceInterpreterCustomization/c-kruise-rollout writes `replicaResource` for `Rollout` (rollouts.kruise.io/v1alpha1), which ResourceInterpreterCustomization/b-kruise-rollout writes already: Karmada refuses the second customization".to_string()),
                (Code::CustomizationConflict, "ResourceInterpreterCustomization/c-kruise-rollout writes `garrisonReviseObject` for `Rollout` (rollouts.kruise.io/v1alpha1), which ResourceInterpreterCustomization/b-kruise-rollout writes already: Karmada refuses the second customization".to_string()),
            ]
        );
        let replicas = interpreter
            .replicas(template(&inputs, "Rollout"))
            .ok()
            .flatten();
        assert_eq!(replicas.map(|r| r.desired), Some(4));
    }

    /// Karmada's webhook refuses a rule written twice only when both
    /// scripts are non-empty (`validateCustomizationRule` compares the two
    /// scripts), and merging the customizations of a kind in name order
    /// fills a rule whose script is empty from a later one (the accessor's
    /// `set*` methods): an empty `luaScript` is no script, here as there.
    #[test]
    fn an_empty_script_conflicts_with_nothing_and_a_later_one_fills_it() {
        let text = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: a-foo
spec:
  target:
    apiVersion: example.io/v1
    kind: Foo
  customizations:
    replicaResource:
      luaScript: ""
    replicaRevision:
      luaScript: ""
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: b-foo
spec:
  target:
    apiVersion: example.io/v1
    kind: Foo
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj) return obj.spec.size, nil end
---
apiVersion: example.io/v1
kind: Foo
metadata:
  name: f
  namespace: shop
spec:
  size: 4
"#;
        let (interpreter, inputs) = interpreter(text);
        let foo = template(&inputs, "Foo");
        let replicas = interpreter.replicas(foo).ok().flatten();
        assert_eq!(replicas.map(|r| r.desired), Some(4));
        assert!(!interpreter.revises(&foo.key));
    }

    #[test]
    fn seed_hook_writes_pull_on_the_fort_cluster_only() {
        let fort = revise_seed("cluster-x", Some("cluster-x"), 3);
        assert_eq!(
            text(&fort["spec"]["strategy"]),
            r#"{"canary":{"steps":[{"properties":{"delay":"-1","pull":"false"},"type":"Fort"},{"properties":{"delay":"-1","pull":"true"},"type":"Fort"},{"properties":{"delay":"-1","replicas":"50%"},"type":"Batch"}]}}"#
        );
        assert_eq!(
            text(&fort["metadata"]["annotations"]),
            r#"{"cluster":"cluster-x","fortCluster":"cluster-x","fortLabel":"true","replicas":"3"}"#
        );
        let other = revise_seed("cluster-z", Some("cluster-x"), 0);
        assert_eq!(
            text(&other["spec"]["strategy"]),
            r#"{"canary":{"steps":[{"properties":{"delay":"-1"},"type":"Fort"},{"properties":{"delay":"-1"},"type":"Fort"},{"properties":{"delay":"-1","replicas":"50%"},"type":"Batch"}]}}"#
        );
        assert_eq!(other["metadata"]["annotations"]["replicas"], json!("0"));
    }

    #[test]
    fn dependencies_union_across_customizations_with_selectors() {
        let text = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: a}
spec:
  target: {apiVersion: example.io/v1, kind: Widget}
  customizations:
    dependencyInterpretation:
      luaScript: |
        function GetDependencies(obj)
          return {{apiVersion = "v1", kind = "ConfigMap", namespace = obj.metadata.namespace, name = obj.spec.config},
                  {apiVersion = "rbac.authorization.k8s.io/v1", kind = "ClusterRole", name = "viewer"}}
        end
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: b}
spec:
  target: {apiVersion: example.io/v1, kind: Widget}
  customizations:
    dependencyInterpretation:
      luaScript: |
        function GetDependencies(obj)
          return {{apiVersion = "v1", kind = "Secret", namespace = "ns",
                   labelSelector = {matchExpressions = {{key = "team", operator = "In", values = {"a"}}}}},
                  {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = "cfg"}}
        end
---
apiVersion: example.io/v1
kind: Widget
metadata: {name: w, namespace: ns}
spec: {config: cfg}
---
apiVersion: v1
kind: Secret
metadata: {name: s1, namespace: ns, labels: {team: a}}
---
apiVersion: v1
kind: Secret
metadata: {name: s2, namespace: ns, labels: {team: b}}
---
apiVersion: v1
kind: Secret
metadata: {name: s3, namespace: other, labels: {team: a}}
"#;
        let (interpreter, inputs) = interpreter(text);
        let keys: Vec<String> = interpreter
            .dependencies(template(&inputs, "Widget"), &inputs.templates)
            .unwrap_or_default()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            keys,
            ["ClusterRole/viewer", "ConfigMap/ns/cfg", "Secret/ns/s1"]
        );
    }

    /// The built-in ServiceImport dependencies: the derived Service by
    /// name, whether the repository has it or not, and every EndpointSlice
    /// of the namespace labelled with it.
    #[test]
    fn built_in_selectors_pick_templates_of_the_namespace() {
        let text = r#"
apiVersion: multicluster.x-k8s.io/v1alpha1
kind: ServiceImport
metadata: {name: web, namespace: shop}
spec: {type: ClusterSetIP}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: a, namespace: shop, labels: {kubernetes.io/service-name: derived-web}}
addressType: IPv4
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: b, namespace: shop, labels: {kubernetes.io/service-name: other}}
addressType: IPv4
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: c, namespace: elsewhere, labels: {kubernetes.io/service-name: derived-web}}
addressType: IPv4
"#;
        let (interpreter, inputs) = interpreter(text);
        let keys: Vec<String> = interpreter
            .dependencies(template(&inputs, "ServiceImport"), &inputs.templates)
            .unwrap_or_default()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(keys, ["Service/shop/derived-web", "EndpointSlice/shop/a"]);
    }

    /// An Ingress TLS entry without a secret: no dependencies at all.
    #[test]
    fn an_unnamed_built_in_reference_refuses_the_list() {
        let text = r#"
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  tls: [{secretName: a}, {hosts: [x.example.com]}]
"#;
        let (interpreter, inputs) = interpreter(text);
        let found = interpreter.dependencies(template(&inputs, "Ingress"), &inputs.templates);
        assert!(
            matches!(&found, Err(DependenciesError::Unnamed(u)) if u.index == 1),
            "{found:?}"
        );
    }

    fn failing(
        script: &str,
        rule_field: &str,
    ) -> (Result<Option<Replicas>, InterpretError>, Inputs) {
        let text = format!(
            "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {{name: broken}}\nspec:\n  target: {{apiVersion: example.io/v1, kind: Widget}}\n  customizations:\n    {rule_field}:\n      luaScript: |\n{}\n---\napiVersion: example.io/v1\nkind: Widget\nmetadata: {{name: w, namespace: ns}}\nspec: {{replicas: 2}}\n",
            script.lines().map(|l| format!("        {l}")).collect::<Vec<_>>().join("\n")
        );
        let (interpreter, inputs) = interpreter(&text);
        let result = interpreter.replicas(template(&inputs, "Widget"));
        (result, inputs)
    }

    #[test]
    fn wrong_return_types_fail_with_the_customization_named() {
        for (script, message) in [
            (
                "function GetReplicas(obj) return nil end",
                "expected the first result (replicas) to be a number, got nil",
            ),
            (
                "function GetReplicas(obj) return 'two' end",
                "expected the first result (replicas) to be a number, got string",
            ),
            (
                "function GetReplicas(obj) return 2, 'x' end",
                "expected the second result (requirements) to be a table or nil, got string",
            ),
            (
                "function GetReplicas(obj) return -1 end",
                "the replica count -1 is negative or not finite",
            ),
        ] {
            let (result, _) = failing(script, "replicaResource");
            match result {
                Err(error) => {
                    assert!(matches!(error.fault, ScriptFault::Result(_)), "{script}");
                    assert_eq!(error.fault.to_string(), message, "{script}");
                    let diagnostic = error.diagnostic(
                        &ObjectKey {
                            api_version: "example.io/v1".into(),
                            kind: "Widget".into(),
                            namespace: Some("ns".into()),
                            name: "w".into(),
                        },
                        None,
                    );
                    assert_eq!(diagnostic.code, Code::LuaCallFailed);
                    assert_eq!(
                        diagnostic.message,
                        format!("ResourceInterpreterCustomization/broken `GetReplicas` (replicaResource) failed on `Widget/ns/w`: {message}")
                    );
                    assert_eq!(diagnostic.origin.map(|o| o.pos.line), Some(9));
                }
                other => panic!("{script}: {other:?}"),
            }
        }
    }

    #[test]
    fn runaway_and_memory_bomb_are_limit_errors() {
        for script in [
            "function GetReplicas(obj) while true do end end",
            "function GetReplicas(obj) for i = 1, 1000 do pcall(function() while true do end end) end return 1 end",
            "function GetReplicas(obj) local s = 'x' while true do s = s .. s end end",
        ] {
            let (result, _) = failing(script, "replicaResource");
            match result {
                Err(error) => assert_eq!(error.code(), Code::LuaLimitExceeded, "{script}"),
                other => panic!("{script}: {other:?}"),
            }
        }
    }

    #[test]
    fn scripts_that_do_not_load_are_input_errors() {
        let (inputs, mut diagnostics) = inputs(
            "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: broken}\nspec:\n  target: {apiVersion: example.io/v1, kind: Widget}\n  customizations:\n    replicaResource:\n      luaScript: 'function Replicas(obj) return 1 end'\n    replicaRevision:\n      luaScript: 'function ReviseReplica(obj'\n",
        );
        let _ = Interpreter::new(&inputs.customizations, &mut diagnostics);
        let found: Vec<(Code, u32, &str)> = diagnostics
            .0
            .iter()
            .map(|d| {
                (
                    d.code,
                    d.origin.map_or(0, |o| o.pos.line),
                    d.message.as_str(),
                )
            })
            .collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, Code::LuaLoadFailed);
        assert_eq!(found[0].1, 8);
        assert!(
            found[0]
                .2
                .ends_with("the script does not define function `GetReplicas`"),
            "{}",
            found[0].2
        );
        assert_eq!((found[1].0, found[1].1), (Code::LuaLoadFailed, 10));
        assert!(
            found[1].2.contains("broken.replicaRevision:1:"),
            "{}",
            found[1].2
        );
    }

    #[test]
    fn a_script_may_not_change_identity() {
        let text = "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: rename}\nspec:\n  target: {apiVersion: example.io/v1, kind: Widget}\n  customizations:\n    replicaRevision:\n      luaScript: 'function ReviseReplica(obj, n) obj.metadata.name = \"other\" return obj end'\n---\napiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\n";
        let (interpreter, inputs) = interpreter(text);
        let widget = template(&inputs, "Widget");
        let mut value = widget.value.clone();
        let result = interpreter.revise_replicas(&widget.key, &mut value, 1);
        assert!(
            matches!(
                &result,
                Err(InterpretError {
                    fault: ScriptFault::Result(ResultError::IdentityChanged {
                        field: "metadata.name"
                    }),
                    ..
                })
            ),
            "{result:?}"
        );
    }
}
