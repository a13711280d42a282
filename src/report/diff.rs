//! Unified diffs of two trees, with Secret values masked.

use crate::model::layout::Tree;

/// The value shown in place of every Secret `data`/`stringData` value.
pub const MASK: &str = "<masked>";
const MASK_CHANGED: &str = "<masked, changed>";

/// Mask Secret values in `old` and `new` (objects or Works holding them),
/// marking the ones that differ, so a diff shows which keys changed and
/// never what they hold.
fn mask_secrets(old: &mut serde_json::Value, new: &mut serde_json::Value) {
    use serde_json::Value;
    fn secrets(value: &mut Value) -> Vec<&mut serde_json::Map<String, Value>> {
        let is_secret = value.get("kind").and_then(Value::as_str) == Some("Secret");
        if is_secret {
            return value.as_object_mut().into_iter().collect();
        }
        match value {
            Value::Object(map) => map.values_mut().flat_map(secrets).collect(),
            Value::Array(items) => items.iter_mut().flat_map(secrets).collect(),
            _ => Vec::new(),
        }
    }
    let mut old_secrets = secrets(old);
    let mut new_secrets = secrets(new);
    for field in ["data", "stringData"] {
        for (i, secret) in new_secrets.iter_mut().enumerate() {
            let before = old_secrets
                .get(i)
                .and_then(|o| o.get(field))
                .and_then(Value::as_object)
                .cloned();
            if let Some(Value::Object(values)) = secret.get_mut(field) {
                for (key, value) in values.iter_mut() {
                    let same = before.as_ref().and_then(|b| b.get(key)) == Some(value);
                    *value = Value::String(if same { MASK } else { MASK_CHANGED }.to_string());
                }
            }
        }
        for secret in old_secrets.iter_mut() {
            if let Some(Value::Object(values)) = secret.get_mut(field) {
                for value in values.values_mut() {
                    *value = Value::String(MASK.to_string());
                }
            }
        }
    }
}

/// Text of a file for a diff, with Secret values masked against its counterpart.
fn diff_texts(path: &str, old: Option<&Vec<u8>>, new: Option<&Vec<u8>>) -> (String, String) {
    let parse = |bytes: Option<&Vec<u8>>| {
        bytes
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|t| serde_saphyr::from_str::<serde_json::Value>(t).ok())
    };
    let raw = |bytes: Option<&Vec<u8>>| {
        bytes
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    let mentions_secret = |bytes: Option<&Vec<u8>>| {
        bytes.is_some_and(|b| String::from_utf8_lossy(b).contains("kind: Secret"))
    };
    if !path.ends_with(".yaml") || !(mentions_secret(old) || mentions_secret(new)) {
        return (raw(old), raw(new));
    }
    let mut old_value = parse(old).unwrap_or(serde_json::Value::Null);
    let mut new_value = parse(new).unwrap_or(serde_json::Value::Null);
    mask_secrets(&mut old_value, &mut new_value);
    let text = |present: bool, value: &serde_json::Value| {
        if present {
            crate::emit::yaml::to_yaml(value).unwrap_or_default()
        } else {
            String::new()
        }
    };
    (
        text(old.is_some(), &old_value),
        text(new.is_some(), &new_value),
    )
}

/// A unified diff of every file that differs between the trees, Secret values masked.
pub fn unified_diff(old: &Tree, new: &Tree, color: bool) -> String {
    let mut out = String::new();
    let paths: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for path in paths {
        let (o, n) = (old.get(path), new.get(path));
        if o == n || crate::model::layout::PROVENANCE_FILES.contains(&path.as_str()) {
            continue;
        }
        let (old_text, new_text) = diff_texts(path, o, n);
        let diff = similar::TextDiff::from_lines(&old_text, &new_text);
        let from = if o.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".to_string()
        };
        let to = if n.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".to_string()
        };
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&from, &to)
            .to_string();
        for line in text.lines() {
            let painted = match (color, line.chars().next()) {
                (true, Some('+')) if !line.starts_with("+++") => format!("\x1b[32m{line}\x1b[0m"),
                (true, Some('-')) if !line.starts_with("---") => format!("\x1b[31m{line}\x1b[0m"),
                (true, Some('@')) => format!("\x1b[36m{line}\x1b[0m"),
                _ => line.to_string(),
            };
            out.push_str(&painted);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::layout::text_tree as tree;

    #[test]
    fn secret_values_never_reach_a_diff() {
        let old = tree(&[("clusters/a/ns/secret_db.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: aHVudGVyMg==\n  user: YWRtaW4=\n")]);
        let new = tree(&[("clusters/a/ns/secret_db.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: czNjcjN0\n  user: YWRtaW4=\n")]);
        let diff = unified_diff(&old, &new, false);
        assert!(
            !diff.contains("aHVudGVyMg") && !diff.contains("czNjcjN0") && !diff.contains("YWRtaW4"),
            "{diff}"
        );
        insta::assert_snapshot!(diff, @r#"
        --- a/clusters/a/ns/secret_db.yaml
        +++ b/clusters/a/ns/secret_db.yaml
        @@ -3,5 +3,5 @@
         metadata:
           name: db
         data:
        -  password: <masked>
        +  password: <masked, changed>
           user: <masked>
        "#);
    }

    #[test]
    fn added_and_removed_files_diff_against_dev_null() {
        let old = tree(&[("clusters/a/x.yaml", "a: 1\n")]);
        let new = tree(&[("clusters/a/y.yaml", "b: 2\n")]);
        insta::assert_snapshot!(unified_diff(&old, &new, false), @r"
        --- a/clusters/a/x.yaml
        +++ /dev/null
        @@ -1 +0,0 @@
        -a: 1
        --- /dev/null
        +++ b/clusters/a/y.yaml
        @@ -0,0 +1 @@
        +b: 2
        ");
    }
}
