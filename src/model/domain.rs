//! garrison's own domain (SPEC §10): every `garrison.dev/` label and
//! annotation garrison reads or writes, on what, with which values, in one
//! table ([`KEYS`]). `load::domain` checks every document against it, so
//! that a misspelt key (`garrison.dev/sync-pause`) or value
//! (`garrison.dev/sync-paused: "yes"`) is an error instead of a cluster the
//! user meant to pause getting the new image. `docs/reference.md` lists the
//! same table.
//!
//! The keys are defined beside what they mean (the fort annotation with
//! the policy, the pause annotation with the cluster, the binding's records
//! with the record); this table only gathers them.

use super::cluster::SYNC_PAUSED_ANNOTATION;
use super::customization::REVISE_OBJECT_ANNOTATION;
use super::meta::FORT_CLUSTER_ANNOTATION;
use super::policy::FORT_ANNOTATION;
use super::record::{
    DIGEST_ANNOTATION, HELD_ANNOTATION, PINNED_ANNOTATION, REQUIRED_ANNOTATION,
    SUBSCRIPTIONS_ANNOTATION, SUBSCRIPTION_SPEC_ANNOTATION, WITHHELD_ANNOTATION,
};

/// What every key of the domain starts with.
pub const PREFIX: &str = "garrison.dev/";

/// The virtual cluster label overrides and the revise hook see: whether the
/// cluster is the fort of the application being rendered (SPEC §3.6).
pub const FORT_LABEL: &str = "garrison.dev/fort";
/// The value of [`FORT_ANNOTATION`] that opts a policy in.
pub const FORT_ENABLED: &str = "enabled";

/// The documents a key may be written on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A PropagationPolicy or ClusterPropagationPolicy.
    PropagationPolicy,
    /// An OverridePolicy or ClusterOverridePolicy.
    OverridePolicy,
    /// A Karmada Cluster (`cluster.karmada.io`).
    Cluster,
    /// A Clusternet ManagedCluster (`clusters.clusternet.io`).
    ManagedCluster,
    /// A ResourceBinding or ClusterResourceBinding.
    Binding,
    ResourceInterpreterCustomization,
    ClusterTaintPolicy,
    FederatedHpa,
    Subscription,
    Localization,
    Globalization,
    /// Any resource template.
    Template,
}

impl Holder {
    /// The documents, for messages: `a PropagationPolicy or ClusterPropagationPolicy`.
    pub fn describe(self) -> &'static str {
        match self {
            Holder::PropagationPolicy => "a PropagationPolicy or ClusterPropagationPolicy",
            Holder::OverridePolicy => "an OverridePolicy or ClusterOverridePolicy",
            Holder::Cluster => "a Cluster (cluster.karmada.io)",
            Holder::ManagedCluster => "a ManagedCluster (clusters.clusternet.io)",
            Holder::Binding => "a ResourceBinding or ClusterResourceBinding",
            Holder::ResourceInterpreterCustomization => "a ResourceInterpreterCustomization",
            Holder::ClusterTaintPolicy => "a ClusterTaintPolicy",
            Holder::FederatedHpa => "a FederatedHPA",
            Holder::Subscription => "a Subscription",
            Holder::Localization => "a Localization",
            Holder::Globalization => "a Globalization",
            Holder::Template => "a resource template",
        }
    }
}

/// Where on a document a key is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Annotation,
    Label,
    /// A key of a label selector that selects clusters while an
    /// application is rendered for them (`matchLabels`, `matchExpressions`).
    ClusterSelector,
}

impl Place {
    pub fn describe(self) -> &'static str {
        match self {
            Place::Annotation => "annotation",
            Place::Label => "label",
            Place::ClusterSelector => "selector key",
        }
    }
}

impl Key {
    /// Where the key goes: `an annotation of a Cluster (cluster.karmada.io)`.
    pub fn describe(&self) -> String {
        let on = match self.on.split_last() {
            Some((last, [])) => last.describe().to_string(),
            Some((last, rest)) => {
                let rest: Vec<&str> = rest.iter().map(|h| h.describe()).collect();
                format!("{}, or {}", rest.join(", "), last.describe())
            }
            None => String::new(),
        };
        match (self.place, self.values) {
            (_, Values::Written) => format!("an annotation garrison writes on {on}"),
            (Place::Annotation, _) => format!("an annotation of {on}"),
            (Place::Label, _) => format!("a label of {on}"),
            (Place::ClusterSelector, _) => {
                format!("a cluster label that the cluster selectors of {on} select on")
            }
        }
    }
}

/// The values a key takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// Exactly one of these.
    OneOf(&'static [&'static str]),
    /// A cluster name (checked where it is used: a fort pin to a cluster
    /// that is not a candidate is G0401).
    Cluster,
    /// A Lua script.
    Script,
    /// What garrison wrote there in a rendered binding. A binding of the
    /// source copied from a render may carry it; it has no effect there.
    Written,
}

impl Values {
    /// `` `true` or `false` ``, for messages and docs.
    pub fn describe(self) -> String {
        match self {
            Values::OneOf(values) => {
                let shown: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
                match shown.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => String::new(),
                }
            }
            Values::Cluster => "a cluster name".to_string(),
            Values::Script => "a Lua script".to_string(),
            Values::Written => "what garrison wrote".to_string(),
        }
    }
}

/// One key of the domain, on the documents it may be written on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub key: &'static str,
    pub place: Place,
    pub on: &'static [Holder],
    pub values: Values,
    /// What it does, one line.
    pub meaning: &'static str,
}

const TRUE_OR_FALSE: &[&str] = &["true", "false"];

/// Every `garrison.dev/` key garrison reads or writes. A key may appear in
/// more than one line, once per place or meaning.
pub const KEYS: &[Key] = &[
    Key {
        key: FORT_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::PropagationPolicy, Holder::Subscription],
        values: Values::OneOf(&[FORT_ENABLED]),
        meaning: "opt the policy's applications into fort placement",
    },
    Key {
        key: FORT_CLUSTER_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Template],
        values: Values::Cluster,
        meaning: "pin the application's fort to this cluster; written on every rendered copy of a fort-enabled application",
    },
    Key {
        key: SYNC_PAUSED_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Cluster],
        values: Values::OneOf(TRUE_OR_FALSE),
        meaning: "`true` pauses the cluster; `false` is the same as no annotation",
    },
    Key {
        key: REVISE_OBJECT_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::ResourceInterpreterCustomization],
        values: Values::Script,
        meaning: "the revise-object hook of the customization's kind",
    },
    Key {
        key: FORT_LABEL,
        place: Place::ClusterSelector,
        on: &[Holder::OverridePolicy, Holder::Globalization],
        values: Values::OneOf(TRUE_OR_FALSE),
        meaning: "the virtual cluster label: whether the cluster is the fort of the fort-enabled application being rendered",
    },
    Key {
        key: FORT_CLUSTER_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "the fort cluster, on a rendered binding",
    },
    Key {
        key: HELD_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "the held clusters of the binding, on a rendered binding",
    },
    Key {
        key: REQUIRED_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "the clusters of the binding only its dependents bring it to, on a rendered binding",
    },
    Key {
        key: WITHHELD_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "the held clusters the application has nothing on, on a rendered binding",
    },
    Key {
        key: DIGEST_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "the render digest, on a rendered binding",
    },
    Key {
        key: PINNED_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "the schedule came from a ResourceBinding of the source, on a rendered binding",
    },
    Key {
        key: SUBSCRIPTIONS_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "the Subscriptions that feed the application, on a rendered binding",
    },
    Key {
        key: SUBSCRIPTION_SPEC_ANNOTATION,
        place: Place::Annotation,
        on: &[Holder::Binding],
        values: Values::Written,
        meaning: "a digest of those Subscriptions' specs, on a rendered binding",
    },
];

/// The line of [`KEYS`] for `key` written at `place` on `holder`.
pub fn find(key: &str, place: Place, holder: Holder) -> Option<&'static Key> {
    KEYS.iter()
        .find(|k| k.key == key && k.place == place && k.on.contains(&holder))
}

/// Every line of [`KEYS`] for `key`, wherever it goes.
pub fn lines_of(key: &str) -> impl Iterator<Item = &'static Key> + '_ {
    KEYS.iter().filter(move |k| k.key == key)
}

/// The keys that may be written at `place` on `holder`.
pub fn keys_for(place: Place, holder: Holder) -> impl Iterator<Item = &'static str> {
    KEYS.iter()
        .filter(move |k| k.place == place && k.on.contains(&holder))
        .map(|k| k.key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn every_key_is_in_the_domain_and_each_place_holds_it_once() {
        for (i, key) in KEYS.iter().enumerate() {
            assert!(key.key.starts_with(PREFIX), "{}", key.key);
            for holder in key.on {
                let twice = KEYS[i + 1..]
                    .iter()
                    .any(|k| k.key == key.key && k.place == key.place && k.on.contains(holder));
                assert!(!twice, "{} on {holder:?} is listed twice", key.key);
            }
        }
    }

    /// Every `"garrison.dev/…"` string the code holds, tests aside: the
    /// keys garrison reads and writes all come from this table.
    fn literals(dir: &Path, found: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            panic!("cannot list {}", dir.display());
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path.to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.ends_with("/tests") {
                    literals(&path, found);
                }
                continue;
            }
            if !name.ends_with(".rs") || name.ends_with("/tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (at, _) in code.match_indices("\"garrison.dev/") {
                let literal: String = code[at + 1..].chars().take_while(|c| *c != '"').collect();
                found.push((name.clone(), literal));
            }
        }
    }

    #[test]
    fn every_garrison_key_in_the_code_is_a_line_of_the_table() {
        let mut found = Vec::new();
        literals(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(found.len() >= 10, "{found:?}");
        for (file, literal) in found.into_iter().filter(|(_, l)| l != PREFIX) {
            assert!(
                KEYS.iter().any(|k| k.key == literal),
                "`{literal}` in {file} is not in model::domain::KEYS"
            );
        }
    }
}
