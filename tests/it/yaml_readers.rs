//! What garrison writes, the Go readers that consume it read back exactly
//! (SPEC §6): kubectl's YAML 1.1 reader (sigs.k8s.io/yaml over go-yaml v2),
//! go-yaml v2 itself and go-yaml v3 (kustomize's). Every document of the
//! real-manifest corpus (`testdata/corpus/`) and a few thousand documents
//! carrying random strings go through `garrison::emit::yaml::to_yaml`, then
//! through `conformance/yaml-readers` (one Go process for all of them),
//! and each reader must give back the value that was written: every string
//! exactly, multi-line ones written as literal blocks or quoted.

use garrison::emit::yaml::{literal_block, to_yaml};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const READERS: [&str; 3] = ["kubectl", "v2", "v3"];

/// Build the readers into `target/`.
fn build() -> PathBuf {
    crate::go_program::build(
        "yaml-readers",
        "yaml-readers",
        "the YAML readers",
        "this test needs Go 1.22 or newer",
    )
}

/// What each Go reader read from each of `documents`.
fn read_with_go(binary: &Path, documents: &[String]) -> Vec<Value> {
    let spawned = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => panic!("cannot start {}: {e}", binary.display()),
    };
    let input = match serde_json::to_vec(documents) {
        Ok(input) => input,
        Err(e) => panic!("the documents do not serialise: {e}"),
    };
    // Written from a thread: the answers fill the stdout pipe while the
    // documents are still going in.
    let Some(mut stdin) = child.stdin.take() else {
        panic!("the readers' stdin was not opened");
    };
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = match child.wait_with_output() {
        Ok(output) => output,
        Err(e) => panic!("the readers did not finish: {e}"),
    };
    match writer.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("cannot send the documents to the readers: {e}"),
        Err(_) => panic!("the thread writing to the readers panicked"),
    }
    assert!(
        output.status.success(),
        "the readers failed: {}",
        output.status
    );
    match serde_json::from_slice::<Vec<Value>>(&output.stdout) {
        Ok(answers) if answers.len() == documents.len() => answers,
        Ok(answers) => panic!(
            "{} answers for {} documents",
            answers.len(),
            documents.len()
        ),
        Err(e) => panic!("the readers' answer is not JSON: {e}"),
    }
}

/// Whether `read` is `written`: strings, booleans, nulls and keys exactly,
/// numbers by value (Go prints `1.0` as `1`).
fn same(written: &Value, read: &Value) -> bool {
    match (written, read) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, x)| b.get(key).is_some_and(|y| same(x, y)))
        }
        _ => written == read,
    }
}

/// Every document of the corpus, as garrison reads it.
fn corpus_documents() -> Vec<Value> {
    use crate::corpus::{corpus, files, parse, read};
    let files = files(&corpus());
    assert!(files.len() > 600, "the corpus has {} files", files.len());
    files
        .iter()
        .flat_map(|path| parse(path, &read(path)))
        .map(|node| node.to_value())
        .collect()
}

/// A small deterministic generator (xorshift64*), so that every run
/// checks the same strings and a failure can be replayed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }
}

/// Text made of pieces YAML gives a meaning to, words, and characters of
/// every kind: line feeds often, characters that rule a block out seldom.
fn random_text(random: &mut Random) -> String {
    const PIECES: [&str; 32] = [
        "\t",
        " ",
        "  ",
        "#",
        " # ",
        ": ",
        "- ",
        "---",
        "...",
        "|",
        "|-",
        ">",
        "\"",
        "'",
        "\\",
        "yes",
        "0777",
        "null",
        "~",
        "{",
        "[",
        "&a",
        "*a",
        "!t",
        "%",
        "@",
        "`",
        "é",
        "日本",
        "😀",
        "\u{a0}",
        "{{ .Values.x }}",
    ];
    const ODD: [&str; 9] = [
        "\r\n", "\r", "\u{85}", "\u{2028}", "\u{feff}", "\u{7f}", "\u{0}", "\u{1b}", "\u{fffe}",
    ];
    const WORDS: [&str; 7] = ["data", "key", "value", "true", "1e3", "on", "-"];
    let mut text = String::new();
    for _ in 0..random.below(30) {
        match random.below(40) {
            0..=9 => text.push('\n'),
            10..=21 => text.push_str(PIECES[random.below(PIECES.len())]),
            22..=31 => text.push_str(WORDS[random.below(WORDS.len())]),
            32..=35 => text.push(char::from(
                b' ' + u8::try_from(random.below(95)).unwrap_or(0),
            )),
            36 => text.push_str(ODD[random.below(ODD.len())]),
            _ => {
                let code = u32::try_from(random.below(0x11_0000)).unwrap_or(0);
                text.push(char::from_u32(code).unwrap_or('x'));
            }
        }
    }
    text
}

/// `text` in one of the places a string sits in a manifest.
fn placed(text: String, place: usize) -> Value {
    match place {
        0 => json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b", "k": text}}),
        1 => json!({"spec": {"containers": [
            {"name": "c", "args": [text.clone(), "x"], "env": [{"name": "E", "value": text}]}
        ]}}),
        2 => json!({"items": [[text], {"k": 1}]}),
        _ => json!({ text: "key" }),
    }
}

/// Documents that the rule treats case by case, in every place.
fn edge_documents() -> Vec<Value> {
    let texts = [
        "a\nb",
        "a\nb\n",
        "a\n",
        "a\nb\n\n",
        "a\n\n\n",
        "a\n\n\nb",
        "a\n  b\n    c",
        "a\n\tb\n",
        "a\tb\nc",
        "a\n---\nb\n...\n--- c\n",
        "---\n",
        "...\na",
        "# title\nkey: value\n- item",
        "yes\n0777",
        "ünï\n日本 😀\u{a0}x",
        " a\nb",
        "\ta\nb",
        "\na",
        "\n",
        "\n\n",
        "a \nb",
        "a\t\nb",
        "a\nb ",
        "a\n \nb",
        "a\r\nb\r\n",
        "a\rb\nc",
        "a\u{85}b\nc",
        "a\u{2028}\nb",
        "\u{feff}a\nb",
        "a\n\u{7f}",
        "a\n\u{fffe}",
        "|\n>",
        "- a\n- b",
        "a: b\nc: d\n",
    ];
    texts
        .iter()
        .flat_map(|text| (0..4).map(|place| placed((*text).to_string(), place)))
        .collect()
}

#[test]
fn go_readers_read_back_exactly_what_garrison_writes() {
    let corpus = corpus_documents();
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let generated: Vec<Value> = (0..4000)
        .map(|i| placed(random_text(&mut random), i % 4))
        .collect();
    let edges = edge_documents();
    let documents: Vec<(&str, &Value)> = corpus
        .iter()
        .map(|d| ("corpus", d))
        .chain(generated.iter().map(|d| ("random", d)))
        .chain(edges.iter().map(|d| ("edge case", d)))
        .collect();
    let texts: Vec<String> = documents
        .iter()
        .map(|(_, value)| match to_yaml(value) {
            Ok(text) => text,
            Err(e) => panic!("{value} does not serialise: {e}"),
        })
        .collect();

    // The test means something only if blocks are written, from both sources.
    let blocks = |from: &[Value]| -> usize { from.iter().map(count_blocks).sum() };
    let (corpus_blocks, random_blocks) = (blocks(&corpus), blocks(&generated));
    assert!(
        corpus_blocks > 500 && random_blocks > 1000,
        "only {corpus_blocks} corpus and {random_blocks} random strings are blocks"
    );

    let started = Instant::now();
    let binary = build();
    let built = started.elapsed().as_secs_f64();
    let answers = read_with_go(&binary, &texts);
    eprintln!(
        "conformance/yaml-readers built in {built:.1} s; {} documents ({corpus_blocks} corpus and {random_blocks} random strings as blocks) read in {:.1} s",
        texts.len(),
        started.elapsed().as_secs_f64() - built
    );
    let mut faults = Vec::new();
    for (((source, value), text), answer) in documents.iter().zip(&texts).zip(&answers) {
        for reader in READERS {
            let read = &answer[reader];
            let fault = match (read.get("error").and_then(Value::as_str), read.get("value")) {
                (Some(error), _) => format!("fails: {error}"),
                (None, Some(back)) if same(value, back) => continue,
                (None, back) => format!("reads {}", back.unwrap_or(&Value::Null)),
            };
            faults.push(format!(
                "{reader} on a {source} document {fault}\nwritten:\n{text}"
            ));
        }
    }
    assert!(
        faults.is_empty(),
        "{} of {} reads differ; the first ones:\n{}",
        faults.len(),
        texts.len() * READERS.len(),
        faults
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// How many string values of `value` are written as literal blocks.
fn count_blocks(value: &Value) -> usize {
    match value {
        Value::String(text) => usize::from(literal_block(text)),
        Value::Array(items) => items.iter().map(count_blocks).sum(),
        Value::Object(map) => map.values().map(count_blocks).sum(),
        _ => 0,
    }
}
