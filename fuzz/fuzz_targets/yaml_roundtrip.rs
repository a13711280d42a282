//! The loader never panics, and whatever it reads, garrison's emitter writes
//! back as text the loader reads to the same value (so no string is ever
//! emitted in a form a YAML reader takes for another type). The input is
//! also taken as one string, written as a mapping value, a sequence item
//! and a key, so multi-line strings (literal blocks or quoted) are reached
//! without going through the parser first.
#![no_main]

use garrison::emit::yaml::to_yaml;
use garrison::load::yaml::{parse_stream, Limits};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

/// `value` written and read back: the same value, or a panic that shows the text.
fn round_trip(value: &Value) {
    let Ok(emitted) = to_yaml(value) else { return };
    let reread = parse_stream(&emitted, &Limits::default());
    let Ok(reread) = reread else { panic!("emitted YAML does not parse:\n{emitted}") };
    let back = reread.first().map(|d| d.to_value()).unwrap_or(Value::Null);
    assert_eq!(&back, value, "round trip changed the value:\n{emitted}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    round_trip(&json!({ "data": { "k": text }, "args": [text, "x"], "z": { text: 1 } }));
    let Ok(documents) = parse_stream(text, &Limits::default()) else { return };
    for document in documents {
        round_trip(&document.to_value());
    }
});
