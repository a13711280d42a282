//! The one integration test binary: whole renders of the fixtures in
//! `testdata/`, multi-render behaviour, and CLI transcripts, all through the
//! real binary.

mod bench_fleet;
mod branch;
mod cli;
mod fleet;
mod fort;
mod memory;
mod pause;
mod properties;
mod render;
mod support;
