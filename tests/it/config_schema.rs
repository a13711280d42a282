//! `docs/garrison.schema.json`, the JSON Schema of `garrison.yaml`, is
//! checked against garrison's own reader of the file
//! (`garrison::load::config::read`):
//!
//! - it is a valid draft 2020-12 schema;
//! - every `garrison.yaml` of the repository (under `testdata/`, and the
//!   examples of the README, of `docs/` and of `src/model/config.rs`) gets
//!   the same verdict from the schema as from the reader;
//! - its keys are the reader's, at every level: the reader is asked which
//!   keys it knows (an unknown key's fault lists them) and which of them
//!   hold a mapping or a list of mappings, so a key added to the config type
//!   and not to the schema, or the other way round, fails here;
//! - for every key, a range of values (nulls, booleans, numbers out of
//!   range, strings, lists, the supported versions and checks) is accepted
//!   or refused alike by both.

use crate::support::{read, root};
use garrison::diag::{Diagnostics, FileId};
use garrison::load::typed::{self, Fault, Fields};
use garrison::load::yaml::{parse_stream, Limits};
use garrison::model::config::Config;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

fn schema() -> Value {
    let path = root().join("docs/garrison.schema.json");
    match serde_json::from_str(&read(&path)) {
        Ok(value) => value,
        Err(e) => panic!("docs/garrison.schema.json is not JSON: {e}"),
    }
}

fn validator() -> jsonschema::Validator {
    match jsonschema::validator_for(&schema()) {
        Ok(validator) => validator,
        Err(e) => panic!("docs/garrison.schema.json does not compile: {e}"),
    }
}

/// The document of a garrison.yaml text as JSON (`null` for an empty file),
/// or `None` when it is not one YAML document.
fn as_json(text: &str) -> Option<Value> {
    let nodes = parse_stream(text, &Limits::default()).ok()?;
    match nodes.as_slice() {
        [] => Some(Value::Null),
        [node] => Some(node.to_value()),
        _ => None,
    }
}

/// garrison's verdict on a garrison.yaml text: its errors, empty when valid.
fn loader_errors(text: &str) -> Vec<String> {
    let mut diagnostics = Diagnostics::default();
    let _ = garrison::load::config::read(text, FileId(0), &mut diagnostics);
    diagnostics
        .0
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect()
}

fn schema_errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    let schema = schema();
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "the schema names its draft"
    );
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("docs/garrison.schema.json is not a valid JSON Schema: {e}");
    }
    let _ = validator();
}

/// Every garrison.yaml file under the repository (build output and git
/// metadata aside), by path from the root.
fn config_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("cannot list {}", dir.display());
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" {
                config_files(&path, out);
            }
        } else if name == "garrison.yaml" {
            out.push(path);
        }
    }
}

/// The ```yaml blocks of a Markdown text.
fn yaml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim();
        match &mut current {
            None if trimmed == "```yaml" => current = Some(String::new()),
            Some(block) if trimmed == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// Whether a YAML example is a garrison.yaml: a mapping whose keys are
/// all keys of the file (Kubernetes objects, workflows and pre-commit
/// configurations have others).
fn is_config_example(text: &str, keys: &[&str]) -> bool {
    match as_json(text) {
        Some(Value::Object(map)) => {
            !map.is_empty() && map.keys().all(|k| keys.contains(&k.as_str()))
        }
        _ => false,
    }
}

/// The examples of garrison.yaml in the README, `docs/*.md` and the
/// config type's documentation, as (where, text).
fn config_examples(keys: &[&str]) -> Vec<(String, String)> {
    let pages = crate::support::doc_pages();
    let mut examples = Vec::new();
    for page in pages {
        let name = page
            .strip_prefix(root())
            .unwrap_or(&page)
            .display()
            .to_string();
        for (i, block) in yaml_blocks(&read(&page)).into_iter().enumerate() {
            if is_config_example(&block, keys) {
                examples.push((format!("{name} yaml block {}", i + 1), block));
            }
        }
    }
    // The `//!` example at the top of the config type.
    let source = read(&root().join("src/model/config.rs"));
    let doc: String = source
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect();
    for block in yaml_blocks(&doc) {
        assert!(
            is_config_example(&block, keys),
            "the example in src/model/config.rs is not read as a garrison.yaml:\n{block}"
        );
        examples.push(("src/model/config.rs".into(), block));
    }
    examples
}

#[test]
fn every_garrison_yaml_of_the_repository_gets_the_readers_verdict_from_the_schema() {
    let validator = validator();
    let keys = known_keys(&Value::Object(Map::new()), &[]);
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut files = Vec::new();
    config_files(&root(), &mut files);
    files.sort();
    let mut cases: Vec<(String, String)> = files
        .iter()
        .map(|path| {
            let name = path
                .strip_prefix(root())
                .unwrap_or(path)
                .display()
                .to_string();
            (name, read(path))
        })
        .collect();
    let in_testdata = cases.len();
    let examples = config_examples(&keys);
    let documented = examples.len();
    cases.extend(examples);
    assert!(
        in_testdata >= 5,
        "only {in_testdata} garrison.yaml files found under the repository: {files:?}"
    );
    assert!(
        documented >= 3,
        "only {documented} garrison.yaml examples found in the README, docs/ and src/model/config.rs"
    );
    let (mut valid, mut invalid, mut faults) = (0, 0, Vec::new());
    for (name, text) in &cases {
        let Some(value) = as_json(text) else {
            faults.push(format!("{name}: not one YAML document"));
            continue;
        };
        let loader = loader_errors(text);
        let schema = schema_errors(&validator, &value);
        if loader.is_empty() {
            valid += 1;
        } else {
            invalid += 1;
        }
        if loader.is_empty() != schema.is_empty() {
            faults.push(format!(
                "{name}: garrison says {loader:?}, the schema says {schema:?}"
            ));
        }
    }
    println!(
        "{} garrison.yaml checked ({in_testdata} files, {documented} examples): {valid} valid, {invalid} refused",
        cases.len()
    );
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    assert!(
        valid > 0 && invalid > 0,
        "the files must include valid and invalid ones"
    );
}

/// The document `{a: {b: leaf}}` for the path `[a, b]` under `base`; a
/// `"[]"` step is a list holding one mapping (a relax rule, with its
/// required keys valid).
fn with_at(base: &Value, path: &[&str], leaf: Value) -> Value {
    let Some((first, rest)) = path.split_first() else {
        return leaf;
    };
    if *first == "[]" {
        let rule = json!({"check": "unknown-field", "paths": []});
        let item = with_at(&rule, rest, leaf);
        return Value::Array(vec![item]);
    }
    let mut map = base.as_object().cloned().unwrap_or_default();
    let inner = map
        .get(*first)
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    map.insert((*first).to_string(), with_at(&inner, rest, leaf));
    Value::Object(map)
}

/// The faults garrison's typed reader finds in `value` read as the config.
fn read_faults(value: &Value) -> Vec<Fault> {
    let text = value.to_string();
    let nodes = match parse_stream(&text, &Limits::default()) {
        Ok(nodes) => nodes,
        Err(e) => panic!("{text} does not parse: {}", e.message),
    };
    let Some(node) = nodes.first() else {
        panic!("{text} holds no document");
    };
    match typed::from_node::<Config>(node, Fields::Strict) {
        Ok((_, faults)) | Err(faults) => faults,
    }
}

const PROBE: &str = "zzNotAKey";

/// The keys garrison reads in the mapping at `path` (`"[]"`: the mapping
/// in a list), from the fault of an unknown key there.
fn known_keys(base: &Value, path: &[&str]) -> Vec<String> {
    let probe = with_at(base, path, json!({PROBE: 1}));
    let faults = read_faults(&probe);
    let known = faults.iter().find_map(|f| match f {
        Fault::UnknownField { field, known, .. } if field == PROBE => Some(known.clone()),
        _ => None,
    });
    match known {
        Some(mut known) => {
            known.sort_unstable();
            known.into_iter().map(str::to_string).collect()
        }
        None => panic!("garrison reads no mapping at {path:?}: {faults:?}"),
    }
}

/// What garrison reads at `path`: a mapping (its keys, recursively), a
/// list of mappings, or a leaf.
#[derive(Debug, PartialEq)]
enum Shape {
    Map(Vec<(String, Shape)>),
    ListOfMaps(Box<Shape>),
    Leaf,
}

fn loader_shape(path: &[&str]) -> Shape {
    let base = Value::Object(Map::new());
    let keys = known_keys(&base, path);
    let mut fields = Vec::new();
    for key in keys {
        let mut at: Vec<&str> = path.to_vec();
        at.push(&key);
        let is = |shape: Value| {
            read_faults(&with_at(&base, &at, shape))
                .iter()
                .any(|f| matches!(f, Fault::UnknownField { field, .. } if field == PROBE))
        };
        let shape = if is(json!({PROBE: 1})) {
            loader_shape(&at)
        } else if is(json!([{PROBE: 1}])) {
            at.push("[]");
            Shape::ListOfMaps(Box::new(loader_shape(&at)))
        } else {
            Shape::Leaf
        };
        fields.push((key, shape));
    }
    Shape::Map(fields)
}

fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn schema_shape(schema: &Value) -> Shape {
    let kinds = types(schema);
    if kinds.contains(&"object") {
        assert_eq!(
            schema["additionalProperties"],
            Value::Bool(false),
            "a mapping of the schema must refuse unknown keys, as garrison does: {schema}"
        );
        let mut fields: Vec<(String, Shape)> = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), schema_shape(v)))
            .collect();
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        return Shape::Map(fields);
    }
    if kinds.contains(&"array") && types(&schema["items"]).contains(&"object") {
        return Shape::ListOfMaps(Box::new(schema_shape(&schema["items"])));
    }
    Shape::Leaf
}

#[test]
fn the_schema_has_every_key_garrison_reads_and_no_other() {
    let loader = loader_shape(&[]);
    let Shape::Map(top) = &loader else {
        panic!("garrison.yaml is not read as a mapping: {loader:?}");
    };
    assert!(top.len() >= 7, "too few keys found: {loader:?}");
    assert_eq!(
        schema_shape(&schema()),
        loader,
        "docs/garrison.schema.json and the config type (src/model/config.rs) differ"
    );
}

/// Every leaf of the schema, by path (`"[]"` for the items of a list of
/// mappings).
fn leaves(schema: &Value, path: Vec<String>, out: &mut Vec<Vec<String>>) {
    if types(schema).contains(&"object") {
        for (key, sub) in schema["properties"].as_object().into_iter().flatten() {
            let mut at = path.clone();
            at.push(key.clone());
            leaves(sub, at, out);
        }
    } else if types(schema).contains(&"array") && types(&schema["items"]).contains(&"object") {
        let mut at = path;
        at.push("[]".into());
        leaves(&schema["items"], at, out);
    } else {
        out.push(path);
    }
}

#[test]
fn the_schema_and_garrison_accept_and_refuse_the_same_values() {
    let validator = validator();
    let schema = schema();
    let mut paths = Vec::new();
    leaves(&schema, Vec::new(), &mut paths);
    let long_label = "a".repeat(64);
    let samples = [
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(-1),
        json!(3),
        json!(3.0),
        json!(0.5),
        json!(1.5),
        json!(1e30),
        json!(u64::MAX),
        json!(""),
        json!("3"),
        json!("shop"),
        json!("Shop"),
        json!("-shop"),
        json!(long_label),
        json!("1.36"),
        json!("1.20"),
        json!("unknown-field"),
        json!("G0109"),
        json!("yaml-syntax"),
        json!("legacy/**"),
        json!([]),
        json!(["legacy/**"]),
        json!([null]),
        json!([1]),
        json!({}),
        json!({"a": 1}),
        json!([{"check": "unknown-field", "paths": ["legacy/**"]}]),
        json!([{"check": "unknown-field"}]),
        json!([null]),
    ];
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for path in &paths {
        let at: Vec<&str> = path.iter().map(String::as_str).collect();
        // The mapping itself too (a whole `limits`, a whole `relax`).
        let mut targets = vec![at.clone()];
        for n in 1..at.len() {
            if at[n - 1] != "[]" && !targets.contains(&at[..n].to_vec()) {
                targets.push(at[..n].to_vec());
            }
        }
        for target in targets {
            for sample in &samples {
                let document = with_at(&Value::Object(Map::new()), &target, sample.clone());
                let loader = loader_errors(&document.to_string());
                let schema = schema_errors(&validator, &document);
                checked += 1;
                if loader.is_empty() != schema.is_empty() {
                    disagreements.push(format!(
                        "{document}: garrison says {loader:?}, the schema says {schema:?}"
                    ));
                }
            }
        }
    }
    assert!(paths.len() >= 12, "too few keys in the schema: {paths:?}");
    assert!(checked > 300, "only {checked} documents checked");
    assert!(
        disagreements.is_empty(),
        "{} of {checked} documents get different verdicts:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn the_versions_and_checks_of_the_schema_are_garrisons() {
    let schema = schema();
    let versions: Vec<&str> = schema
        .pointer("/properties/kubernetesVersion/enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        versions,
        garrison::schema::builtin::versions().collect::<Vec<_>>()
    );
    let checks: Vec<&str> = schema
        .pointer("/properties/relax/items/properties/check/enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut expected = Vec::new();
    for code in garrison::model::config::TEMPLATE_CHECKS
        .iter()
        .chain(garrison::model::config::WARNING_CHECKS)
    {
        expected.push(code.name());
        expected.push(code.code());
    }
    let (mut checks, mut expected) = (checks, expected);
    checks.sort_unstable();
    expected.sort_unstable();
    assert_eq!(checks, expected);
    // The defaults the schema states are garrison's.
    let default = |pointer: &str| schema.pointer(pointer).cloned().unwrap_or(Value::Null);
    assert_eq!(
        default("/properties/kubernetesVersion/default"),
        json!(garrison::schema::builtin::DEFAULT_VERSION)
    );
    let limits = Config::default().parse_limits();
    assert_eq!(
        default("/properties/limits/properties/maxFileBytes/default"),
        json!(Config::default().max_file_bytes())
    );
    assert_eq!(
        default("/properties/limits/properties/maxDocuments/default"),
        json!(limits.max_documents)
    );
    assert_eq!(
        default("/properties/limits/properties/maxDepth/default"),
        json!(limits.max_depth)
    );
    assert_eq!(
        default("/properties/limits/properties/maxNodes/default"),
        json!(limits.max_nodes)
    );
    assert_eq!(
        default("/properties/limits/properties/maxAliases/default"),
        json!(limits.max_aliases)
    );
    assert_eq!(
        default("/properties/massPrune/properties/maxShare/default"),
        json!(garrison::model::config::DEFAULT_MASS_PRUNE_SHARE)
    );
    assert_eq!(
        default("/properties/massPrune/properties/minObjects/default"),
        json!(garrison::model::config::DEFAULT_MASS_PRUNE_MIN_OBJECTS)
    );
}
