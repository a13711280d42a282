//! Encrypted secrets pass through: every string of a SOPS-encrypted Secret
//! and a SealedSecret reaches the output unchanged, and nothing is added to
//! a SOPS document (its MAC covers every value).

use crate::support::{read_tree, render_to, stderr, testdata};
use garrison::load::yaml::parse_stream;
use serde_json::Value;

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn parse(text: &str) -> Value {
    match parse_stream(text, &Default::default()) {
        Ok(docs) => docs.first().map(|d| d.to_value()).unwrap_or(Value::Null),
        Err(e) => panic!("{e:?}"),
    }
}

#[test]
fn sops_and_sealed_secrets_pass_through_unchanged() {
    let dir = crate::support::temp();
    let repo = testdata().join("encrypted-secrets/repo");
    let out = dir.path().join("out");
    let output = render_to(&repo, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let tree = read_tree(&out);
    let rendered = |path: &str| {
        parse(&String::from_utf8_lossy(
            tree.get(path).map(Vec::as_slice).unwrap_or_default(),
        ))
    };
    let source = |name: &str| parse(&std::fs::read_to_string(repo.join(name)).unwrap_or_default());

    let sops_in = source("db-credentials.sops.yaml");
    let sops_out = rendered("clusters/member1/payments/secret_db-credentials.yaml");
    assert_eq!(
        sops_out, sops_in,
        "a SOPS document is rendered value for value, with nothing added"
    );

    let sealed_in = source("api-token.sealed.yaml");
    let sealed_out = rendered("clusters/member1/payments/sealedsecret.bitnami.com_api-token.yaml");
    let (mut before, mut after) = (Vec::new(), Vec::new());
    strings(&sealed_in["spec"], &mut before);
    strings(&sealed_out["spec"], &mut after);
    assert_eq!(after, before, "sealed data is unchanged");
}
