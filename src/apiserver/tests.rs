use super::*;
use serde_json::json;

#[test]
fn a_custom_resource_is_stored_as_written() {
    let mut value =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    let written = value.clone();
    assert!(!store(&mut value));
    assert_eq!(value, written);
}
