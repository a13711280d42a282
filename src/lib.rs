//! garrison: an offline GitOps renderer for Kubernetes fleets.

pub mod load;
pub mod model;
pub mod overrides;
