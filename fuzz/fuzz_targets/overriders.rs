//! Any override policy applied to any object never panics; on error the
//! object is unchanged.
#![no_main]

use garrison::model::affinity::ClusterView;
use garrison::model::override_policy::OverrideSpec;
use garrison::model::selector::Labels;
use garrison::overrides::{apply, OverridePolicyRef};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    // Input: a JSON array [object, override spec].
    let Ok(Value::Array(parts)) = serde_json::from_slice::<Value>(data) else { return };
    let (Some(object), Some(spec)) = (parts.first(), parts.get(1)) else { return };
    let Ok(spec) = serde_json::from_value::<OverrideSpec>(spec.clone()) else { return };
    let policy = OverridePolicyRef { name: "fuzz", namespace: Some("default"), spec: &spec };
    let labels: Labels = [("region".to_string(), "eu".to_string())].into();
    let zones = vec!["eu-1a".to_string()];
    let cluster = ClusterView { name: "member1", labels: &labels, provider: Some("aws"), region: Some("eu"), zones: &zones };
    let mut patched = object.clone();
    if apply(&mut patched, &[&policy], &cluster).is_err() {
        assert_eq!(&patched, object, "a failed override changed the object");
    }
});
