//! The one integration test binary: whole renders of the fixtures in
//! `testdata/`, checked by snapshot, by `kubectl kustomize` and by the
//! invariants every render must keep.

mod cli;
mod render;
mod support;
