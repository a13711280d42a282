//! The one integration test binary: whole renders of the fixtures in
//! `testdata/`, multi-render behaviour, and CLI transcripts, all through the
//! real binary.

mod action;
mod apiserver;
mod architecture;
mod argocd_plugin;
mod bad_input;
mod bench_fleet;
mod branch;
mod cache;
mod cli;
mod config_schema;
mod conformance;
mod container;
mod corpus;
mod crash;
mod docs;
mod dry;
mod fleet;
mod fort;
mod go_program;
mod install;
mod lua;
mod memory;
mod migrate;
mod pause;
mod promotion;
mod properties;
mod prune;
mod render;
mod report;
mod reuse;
mod secrets;
mod shard;
mod support;
mod terminal;
mod vanish;
mod yaml_readers;
