//! ResourceInterpreterCustomization (`config.karmada.io/v1alpha1`): Lua
//! scripts that teach Karmada a kind's replicas, revision and dependencies
//! (karmada-semantics §f), plus garrison's own revise-object hook (SPEC §4).
//!
//! The hook is declared either in the spec, as
//! `spec.customizations.garrisonReviseObject.luaScript`, or, so that the file
//! stays valid for a real Karmada API server (which rejects unknown spec
//! fields), in the annotation [`REVISE_OBJECT_ANNOTATION`]. Only typing here:
//! compiling and running scripts is `interpret`'s job.

use super::document::Document;
use super::meta::ObjectMeta;
use crate::diag::Origin;
use serde::Deserialize;

/// The annotation form of the revise-object hook: its value is the Lua script.
pub const REVISE_OBJECT_ANNOTATION: &str = "garrison.dev/revise-object";

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CustomizationManifest {
    pub metadata: ObjectMeta,
    pub spec: CustomizationSpec,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CustomizationSpec {
    pub target: CustomizationTarget,
    #[serde(default)]
    pub customizations: Customizations,
}

/// The kind a customization interprets: apiVersion and kind, matched exactly.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationTarget {
    pub api_version: String,
    pub kind: String,
}

/// The rules of a customization. garrison runs the three that make a Work
/// (replicas, their revision, dependencies) and its own revise-object hook.
/// The others change no Work Karmada writes, so a render that does not run
/// them gives Karmada's Works, and they are accepted without a warning
/// (SPEC §10 warns about what Karmada acts on and the render does not):
/// every customization Karmada publishes carries some of them.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Customizations {
    pub replica_resource: Option<LuaScript>,
    pub replica_revision: Option<LuaScript>,
    pub dependency_interpretation: Option<LuaScript>,
    /// `Retain(desired, observed)`: Karmada's execution controller runs it
    /// when it updates the object in a member cluster, after the Work is
    /// written, to keep fields the member's live object set. Not run: the
    /// member's live object is the GitOps agent's to reconcile.
    pub retention: Option<LuaScript>,
    /// `ReflectStatus`: the live object's status into the Work's status,
    /// which no member receives. Not run.
    pub status_reflection: Option<LuaScript>,
    /// `AggregateStatus`: the Works' statuses into the template's status,
    /// which is pruned before delivery. Not run.
    pub status_aggregation: Option<LuaScript>,
    /// `InterpretHealth`: the live object's health, which drives only
    /// `failover` (warned about on the policy). Not run.
    pub health_interpretation: Option<LuaScript>,
    /// `GetComponents`: Karmada's detector runs it instead of
    /// `GetReplicas` only behind its alpha MultiplePodTemplatesScheduling
    /// gate, off by default (`pkg/detector`, `BuildResourceBinding`). Not
    /// run: replicas come from `replicaResource`, as in a default Karmada.
    pub component_resource: Option<LuaScript>,
    /// garrison's extension: `ReviseObject(desiredObj, cluster, replicas, fort)`.
    pub garrison_revise_object: Option<LuaScript>,
}

impl Customizations {
    /// The Karmada rules written here that one kind may take from one
    /// customization only, by field name: every rule but
    /// `dependencyInterpretation`, whose scripts Karmada runs together. Karmada's webhook refuses a second
    /// customization of a kind that writes one of them again
    /// (`pkg/webhook/resourceinterpretercustomization`, `validateCustomizationRule`).
    /// A rule whose `luaScript` is empty writes nothing: the webhook
    /// compares the two scripts and refuses only when both are non-empty,
    /// and the interpreter then takes the later customization's script.
    pub fn exclusive_rules(&self) -> Vec<&'static str> {
        [
            ("replicaResource", &self.replica_resource),
            ("replicaRevision", &self.replica_revision),
            ("retention", &self.retention),
            ("statusReflection", &self.status_reflection),
            ("statusAggregation", &self.status_aggregation),
            ("healthInterpretation", &self.health_interpretation),
            ("componentResource", &self.component_resource),
        ]
        .into_iter()
        .filter(|(_, script)| script.as_ref().is_some_and(LuaScript::is_written))
        .map(|(field, _)| field)
        .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LuaScript {
    pub lua_script: String,
}

impl LuaScript {
    /// Whether the rule has a script: Karmada takes an empty `luaScript`
    /// for no script at all (its interpreter enables a hook only for a
    /// non-empty one, and merging two customizations of a kind fills an
    /// empty script from the later one).
    pub fn is_written(&self) -> bool {
        !self.lua_script.is_empty()
    }
}

/// Where a script was written: the spec field of one rule, or the annotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptSource {
    pub text: String,
    pub origin: Origin,
}

/// One ResourceInterpreterCustomization, typed and positioned.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomizationDoc {
    pub name: String,
    pub target: CustomizationTarget,
    pub customizations: Customizations,
    /// The revise-object hook from the annotation form, if any.
    pub revise_object_annotation: Option<String>,
    pub doc: Document,
}

/// The rules garrison runs, by their Karmada field name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    ReplicaResource,
    ReplicaRevision,
    DependencyInterpretation,
    ReviseObject,
}

impl Rule {
    /// The field under `spec.customizations`.
    pub fn field(self) -> &'static str {
        match self {
            Rule::ReplicaResource => "replicaResource",
            Rule::ReplicaRevision => "replicaRevision",
            Rule::DependencyInterpretation => "dependencyInterpretation",
            Rule::ReviseObject => "garrisonReviseObject",
        }
    }
    /// The global function the script must define.
    pub fn function(self) -> &'static str {
        match self {
            Rule::ReplicaResource => "GetReplicas",
            Rule::ReplicaRevision => "ReviseReplica",
            Rule::DependencyInterpretation => "GetDependencies",
            Rule::ReviseObject => "ReviseObject",
        }
    }
}

impl CustomizationDoc {
    /// The rules one kind may take from one customization only, by field
    /// name, with where each is written: Karmada's
    /// ([`Customizations::exclusive_rules`]) and the revise-object hook, in
    /// either of its forms.
    pub fn exclusive_rules(&self) -> Vec<(&'static str, Origin)> {
        let mut rules: Vec<(&'static str, Origin)> = self
            .customizations
            .exclusive_rules()
            .into_iter()
            .map(|field| (field, self.doc.at(&["spec", "customizations", field])))
            .collect();
        if let Some(hook) = self.script(Rule::ReviseObject) {
            rules.push((Rule::ReviseObject.field(), hook.origin));
        }
        rules
    }

    /// `ResourceInterpreterCustomization/<name>`.
    pub fn display(&self) -> String {
        format!("ResourceInterpreterCustomization/{}", self.name)
    }

    /// The script for a rule, with the position of its text. The spec field
    /// of the revise-object hook wins over the annotation (the loader warns
    /// when both are written).
    pub fn script(&self, rule: Rule) -> Option<ScriptSource> {
        let from_spec = |script: &Option<LuaScript>| {
            script
                .as_ref()
                .filter(|s| s.is_written())
                .map(|s| ScriptSource {
                    text: s.lua_script.clone(),
                    origin: self
                        .doc
                        .at(&["spec", "customizations", rule.field(), "luaScript"]),
                })
        };
        match rule {
            Rule::ReplicaResource => from_spec(&self.customizations.replica_resource),
            Rule::ReplicaRevision => from_spec(&self.customizations.replica_revision),
            Rule::DependencyInterpretation => {
                from_spec(&self.customizations.dependency_interpretation)
            }
            Rule::ReviseObject => {
                from_spec(&self.customizations.garrison_revise_object).or_else(|| {
                    self.revise_object_annotation
                        .as_ref()
                        .map(|text| ScriptSource {
                            text: text.clone(),
                            origin: self.doc.at(&[
                                "metadata",
                                "annotations",
                                REVISE_OBJECT_ANNOTATION,
                            ]),
                        })
                })
            }
        }
    }
}
