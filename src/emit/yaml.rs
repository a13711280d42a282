//! Objects to YAML text that every Kubernetes reader reads back the same.
//!
//! serde-saphyr quotes any string a YAML 1.1 or 1.2 reader could take for
//! another type (`yes`, `on`, `0777`, `1e3`, `null`, `~`, ``); block scalars
//! are off because go-yaml rejects a literal block whose first line starts
//! with a tab. Key order is the object's own.

use serde_json::Value;

/// One YAML document for `value`, ending in a newline.
pub fn to_yaml(value: &Value) -> Result<String, String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = false;
    let mut text =
        serde_saphyr::to_string_with_options(value, options).map_err(|e| e.to_string())?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ambiguous_strings_are_quoted() {
        let probes = [
            "yes",
            "no",
            "on",
            "off",
            "y",
            "n",
            "0777",
            "1e3",
            "null",
            "~",
            "",
            "true",
            "1_000",
            "2024-01-01",
            "1:20",
            "<<",
            "0x1F",
            ".inf",
        ];
        for probe in probes {
            let text = to_yaml(&json!({ "v": probe })).unwrap_or_default();
            let back = crate::load::yaml::parse_stream(&text, &Default::default())
                .ok()
                .and_then(|docs| docs.first().map(|d| d.to_value()));
            assert_eq!(
                back,
                Some(json!({ "v": probe })),
                "probe {probe:?} emitted as {text:?}"
            );
        }
    }

    #[test]
    fn key_order_and_multiline_strings_survive() {
        let value = json!({"b": 1, "a": {"z": "x\ny", "y": "\tlead"}});
        let text = to_yaml(&value).unwrap_or_default();
        insta::assert_snapshot!(text, @r#"
        b: 1
        a:
          z: "x\ny"
          "y": "\tlead"
        "#);
    }
}
