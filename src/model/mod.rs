//! Typed inputs: the Karmada and Clusternet kinds garrison interprets.
//!
//! Templates stay `serde_json::Value` (any kind, key order kept); everything
//! garrison decides from is parsed once into these types. No IO, no placement
//! rules beyond "does this selector match this thing".

pub mod affinity;
pub mod autoscaling;
pub mod binding;
pub mod cluster;
pub mod clusternet;
pub mod config;
pub mod customization;
pub mod document;
pub mod domain;
pub mod go_url;
pub mod inputs;
pub mod layout;
pub mod meta;
pub mod override_policy;
pub mod policy;
pub mod previous;
pub mod quantity;
pub mod record;
pub mod resource_model;
pub mod resource_selector;
pub mod selector;
pub mod taint_policy;
