//! The loader never panics, and whatever it reads, garrison's emitter writes
//! back as text the loader reads to the same value (so no string is ever
//! emitted in a form a YAML reader takes for another type).
#![no_main]

use garrison::emit::yaml::to_yaml;
use garrison::load::yaml::{parse_stream, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(documents) = parse_stream(text, &Limits::default()) else { return };
    for document in documents {
        let value = document.to_value();
        let Ok(emitted) = to_yaml(&value) else { continue };
        let reread = parse_stream(&emitted, &Limits::default());
        let Ok(reread) = reread else { panic!("emitted YAML does not parse:\n{emitted}") };
        let back = reread.first().map(|d| d.to_value()).unwrap_or(serde_json::Value::Null);
        assert_eq!(back, value, "round trip changed the value:\n{emitted}");
    }
});
