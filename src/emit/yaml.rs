//! Objects to YAML text that every Kubernetes reader reads back the same.
//!
//! serde-saphyr quotes any string a YAML 1.1 or 1.2 reader could take for
//! another type (`yes`, `on`, `0777`, `1e3`, `null`, `~`, ``). Key order is
//! the object's own.
//!
//! A multi-line string is written as a literal block scalar (`|`, `|-`,
//! `|+`), so that a one-line change in it is a one-line change in the file,
//! whenever [`literal_block`] says every reader reads the block back as the
//! same string: kubectl's YAML 1.1 reader (sigs.k8s.io/yaml over go-yaml
//! v2), go-yaml v3 (kustomize) and garrison's own. Otherwise, and for
//! every single-line string and every key, it is double-quoted where
//! needed, as serde-saphyr decides; its own choice of block scalars is off.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// One YAML document for `value`, ending in a newline.
pub fn to_yaml(value: &Value) -> Result<String, String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = false;
    let mut text =
        serde_saphyr::to_string_with_options(&Styled(value), options).map_err(|e| e.to_string())?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Whether `text` is written as a literal block scalar: it has a line break,
/// and the block reads back exactly in every reader. That rules out:
///
/// - a first line that is empty or starts with a space or a tab: the block
///   would need an indentation indicator (`|2-`), and go-yaml refuses a
///   block whose first non-empty line starts with a tab, after empty lines
///   too (go-yaml issue 383: "found a tab character where an indentation
///   space is expected");
/// - a line that ends in a space or a tab: a block keeps it, but it cannot
///   be seen in a review, editors and `git diff --check` strip or flag it,
///   and kubectl's and kustomize's own writers quote such strings too;
/// - a character that is not printable in a block, or that a YAML 1.1
///   reader takes for a line break: a control character other than tab and
///   line feed (`\r` among them, so CRLF text stays quoted), DEL, C1
///   controls and NEL, U+2028 and U+2029, the byte-order mark, U+FFFE and
///   U+FFFF. Only a double-quoted string can escape them.
///
/// Trailing line feeds are kept by the chomping indicator: none is `|-`,
/// one is `|`, more is `|+`. A line `---` or `...` inside the block is
/// indented, so no reader takes it for a document marker.
pub fn literal_block(text: &str) -> bool {
    text.contains('\n')
        && !text.starts_with([' ', '\t', '\n'])
        && text.chars().all(printable_in_block)
        && text
            .trim_end_matches('\n')
            .split('\n')
            .all(|line| !line.ends_with([' ', '\t']))
}

/// A character every reader reads back as itself inside a block scalar.
fn printable_in_block(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// A value whose multi-line strings are marked for literal block style;
/// the rest serialises exactly as `serde_json::Value` does.
struct Styled<'a>(&'a Value);

impl Serialize for Styled<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::String(text) if literal_block(text) => {
                serde_saphyr::LitStr(text).serialize(serializer)
            }
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Styled(item))?;
                }
                seq.end()
            }
            Value::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, item) in entries {
                    map.serialize_entry(key, &Styled(item))?;
                }
                map.end()
            }
            other => other.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
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

    /// `value` as written, after checking garrison's reader reads it back.
    fn written(value: &Value) -> String {
        let text = match to_yaml(value) {
            Ok(text) => text,
            Err(e) => panic!("{value} does not serialise: {e}"),
        };
        let back = crate::load::yaml::parse_stream(&text, &Default::default())
            .ok()
            .and_then(|docs| docs.first().map(|d| d.to_value()));
        assert_eq!(back.as_ref(), Some(value), "read back from:\n{text}");
        text
    }

    /// How `{v: text}` is written.
    fn value_as_written(text: &str) -> String {
        written(&json!({ "v": text }))
    }

    #[test]
    fn key_order_is_kept_and_a_multi_line_string_is_a_block() {
        let value = json!({"b": 1, "a": {"z": "x\ny", "y": "\tlead"}});
        insta::assert_snapshot!(written(&value), @r#"
        b: 1
        a:
          z: |-
            x
            y
          "y": "\tlead"
        "#);
    }

    #[test]
    fn chomping_follows_the_trailing_line_feeds() {
        assert_eq!(value_as_written("a\nb"), "v: |-\n  a\n  b\n");
        assert_eq!(value_as_written("a\nb\n"), "v: |\n  a\n  b\n");
        assert_eq!(value_as_written("a\n"), "v: |\n  a\n");
        assert_eq!(value_as_written("a\nb\n\n"), "v: |+\n  a\n  b\n\n");
        assert_eq!(value_as_written("a\n\n\n"), "v: |+\n  a\n\n\n");
        // A kept block followed by another key keeps only its own lines.
        assert_eq!(
            written(&json!({"v": "a\n\n", "w": "b\n"})),
            "v: |+\n  a\n\nw: |\n  b\n"
        );
    }

    #[test]
    fn blank_and_indented_lines_inside_a_block() {
        assert_eq!(value_as_written("a\n\n\nb"), "v: |-\n  a\n\n\n  b\n");
        assert_eq!(
            value_as_written("a\n  b\n    c"),
            "v: |-\n  a\n    b\n      c\n"
        );
        // A tab after the first line is content past the block's indentation.
        assert_eq!(value_as_written("a\n\tb\n"), "v: |\n  a\n  \tb\n");
        assert_eq!(value_as_written("a\tb\nc"), "v: |-\n  a\tb\n  c\n");
    }

    #[test]
    fn yaml_syntax_inside_a_block_is_text() {
        assert_eq!(
            value_as_written("a\n---\nb\n...\n--- c\n"),
            "v: |\n  a\n  ---\n  b\n  ...\n  --- c\n"
        );
        assert_eq!(
            value_as_written("# title\nkey: value\n- item\n\"q\" 'q' \\ {[&a *a !t %"),
            "v: |-\n  # title\n  key: value\n  - item\n  \"q\" 'q' \\ {[&a *a !t %\n"
        );
        assert_eq!(value_as_written("yes\n0777"), "v: |-\n  yes\n  0777\n");
        assert_eq!(
            value_as_written("ünï\n日本 😀\u{a0}x"),
            "v: |-\n  ünï\n  日本 😀\u{a0}x\n"
        );
    }

    #[test]
    fn blocks_in_sequences_and_nested_mappings() {
        let value = json!({
            "args": ["a\nb", "c"],
            "containers": [{"name": "x", "env": [{"name": "E", "value": "1\n2\n"}]}],
            "nested": [["p\nq"]],
        });
        insta::assert_snapshot!(written(&value), @r"
        args:
        - |-
          a
          b
        - c
        containers:
        - name: x
          env:
          - name: E
            value: |
              1
              2
        nested:
        - - |-
            p
            q
        ");
    }

    #[test]
    fn a_multi_line_key_is_quoted() {
        assert_eq!(
            written(&json!({"a\nb": "c\nd"})),
            "\"a\\nb\": |-\n  c\n  d\n"
        );
    }

    #[test]
    fn leading_whitespace_or_an_empty_first_line_is_quoted() {
        assert_eq!(value_as_written(" a\nb"), "v: \" a\\nb\"\n");
        assert_eq!(value_as_written("\ta\nb"), "v: \"\\ta\\nb\"\n");
        assert_eq!(value_as_written("\na"), "v: \"\\na\"\n");
        assert_eq!(value_as_written("\n"), "v: \"\\n\"\n");
        assert_eq!(value_as_written("\n\n"), "v: \"\\n\\n\"\n");
    }

    #[test]
    fn a_line_ending_in_whitespace_is_quoted() {
        assert_eq!(value_as_written("a \nb"), "v: \"a \\nb\"\n");
        assert_eq!(value_as_written("a\t\nb"), "v: \"a\\t\\nb\"\n");
        assert_eq!(value_as_written("a\nb "), "v: \"a\\nb \"\n");
        assert_eq!(value_as_written("a\nb \n"), "v: \"a\\nb \\n\"\n");
        assert_eq!(value_as_written("a\n \nb"), "v: \"a\\n \\nb\"\n");
    }

    #[test]
    fn breaks_and_unprintable_characters_are_quoted() {
        assert_eq!(value_as_written("a\r\nb\r\n"), "v: \"a\\r\\nb\\r\\n\"\n");
        assert_eq!(value_as_written("a\rb\nc"), "v: \"a\\rb\\nc\"\n");
        for odd in [
            '\u{0}', '\u{7}', '\u{1b}', '\u{7f}', '\u{85}', '\u{9f}', '\u{2028}', '\u{2029}',
            '\u{feff}', '\u{fffe}', '\u{ffff}',
        ] {
            let text = format!("a{odd}\nb");
            assert!(!literal_block(&text), "{text:?}");
            assert!(value_as_written(&text).starts_with("v: \""), "{text:?}");
        }
    }

    #[test]
    fn single_line_strings_are_unchanged() {
        assert_eq!(value_as_written("abc"), "v: abc\n");
        assert_eq!(value_as_written("a: b"), "v: \"a: b\"\n");
        assert_eq!(value_as_written(" lead"), "v: \" lead\"\n");
        assert_eq!(value_as_written("# x"), "v: \"# x\"\n");
        let long = "word ".repeat(40);
        assert_eq!(
            value_as_written(long.trim_end()),
            format!("v: {}\n", long.trim_end())
        );
    }

    /// Pieces of text that YAML gives a meaning to, words, and characters
    /// at random; line feeds often, characters that rule a block out seldom.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => Just("\n".to_string()),
            4 => prop::sample::select(vec![
                "\t", " ", "  ", "#", " #", ": ", "- ", "---", "...", "|", "|-", ">", "\"", "'",
                "\\", "yes", "0777", "null", "~", "{", "[", "&a", "*a", "!t", "%", "@", "`", "é",
                "日本", "😀", "\u{a0}",
            ])
            .prop_map(str::to_string),
            4 => "[a-zA-Z0-9]{1,8}",
            1 => prop::sample::select(vec![
                "\r\n", "\r", "\u{85}", "\u{2028}", "\u{feff}", "\u{7f}", "\u{0}", "\u{fffe}",
            ])
            .prop_map(str::to_string),
            1 => any::<char>().prop_map(String::from),
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..24).prop_map(|pieces| pieces.concat())
    }

    /// `text` in one of the places a string sits in a manifest.
    fn placed(text: String, place: u8) -> Value {
        match place {
            0 => json!({ "v": text }),
            1 => json!({ "args": [text, "x"] }),
            2 => json!({"spec": {"containers": [
                {"name": "c", "command": [text.clone()], "env": [{"name": "E", "value": text}]}
            ]}}),
            3 => json!({ "data": { "a": "b", "k": text, "z": 1 } }),
            _ => json!({ text: 1 }),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn every_string_reads_back_from_what_is_written(text in text(), place in 0u8..5) {
            let block = literal_block(&text);
            let value = placed(text.clone(), place);
            let written = written(&value);
            if place == 0 {
                prop_assert_eq!(written.starts_with("v: |"), block, "{:?} as {}", text, written);
            }
        }
    }
}
