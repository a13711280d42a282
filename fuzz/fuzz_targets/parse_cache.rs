//! The parse cache's decoders refuse, never panic on, bytes they did not
//! write; and whatever the YAML loader parses survives the cache unchanged.
#![no_main]

use garrison::load::cache::{decode_binding, decode_documents, encode_documents};
use garrison::load::yaml::{parse_stream, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(documents) = decode_documents(data, 64) {
        assert_eq!(decode_documents(&encode_documents(&documents), 64), Some(documents));
    }
    let _ = decode_binding(data);
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    if let Ok(documents) = parse_stream(text, &limits) {
        let payload = encode_documents(&documents);
        assert_eq!(decode_documents(&payload, limits.max_depth + 2), Some(documents));
    }
});
