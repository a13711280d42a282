//! garrison: an offline GitOps renderer for Kubernetes fleets.
//!
//! Data flows one way: `load` turns the repository into typed, positioned
//! `Inputs`; `plan` (with `schedule`, `fort`, `pause`, `overrides`,
//! `interpret`) decides, from the inputs and the previous render, where
//! every application goes (a `Plan`, no bytes); `emit` makes each cluster's
//! objects with `plan::materialise` and builds the `Tree` of files, unless
//! `prune` finds that it would remove most of the previous render; `store`
//! reads the previous render from a directory or a branch and puts the new
//! tree in its place; `report` summarises. `diag`
//! carries every user-facing fault. `docs/architecture.md` draws the
//! modules and says which owns what.

pub mod apiserver;
pub mod cli;
pub mod commands;
pub mod diag;
pub mod emit;
pub mod fort;
pub mod interpret;
pub mod load;
pub mod migrate;
pub mod model;
pub mod node;
pub mod overrides;
pub mod pause;
pub mod plan;
pub mod prune;
pub mod report;
pub mod reuse;
pub mod schedule;
pub mod schema;
pub mod store;
pub mod vanish;
pub mod yaml;
