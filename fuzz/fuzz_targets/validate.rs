//! Strict reading and schema validation never panic, whatever the document:
//! typed inputs read with `typed::from_node`, CustomResourceDefinitions made
//! into a catalog, and every document checked against its kind's schema
//! (the built-in API or a CRD of the same input).
#![no_main]

use garrison::diag::{Diagnostics, FileId};
use garrison::load::typed::{from_node, Fields};
use garrison::load::yaml::{parse_stream, Limits};
use garrison::node::Node;
use garrison::model::cluster::KarmadaClusterDoc;
use garrison::model::policy::PropagationPolicyDoc;
use garrison::schema::{builtin, crd, resolve, validate_object, Lookup};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(documents) = parse_stream(text, &Limits::default()) else { return };
    let kind_of = |node: &Node| {
        let value = node.to_value();
        let text = |key: &str| value.get(key).and_then(|v| v.as_str()).unwrap_or("").to_string();
        (text("apiVersion"), text("kind"))
    };
    let crds: Vec<(FileId, &Node)> = documents
        .iter()
        .filter(|d| kind_of(d).1 == crd::CRD_KIND)
        .map(|d| (FileId(0), d))
        .collect();
    let mut diagnostics = Diagnostics::default();
    let catalog = crd::catalog(builtin::load_or_default(None), &crds, &mut diagnostics);
    for document in &documents {
        let (api_version, kind) = kind_of(document);
        if let Lookup::Known(found) = catalog.lookup(&api_version, &kind) {
            let _ = validate_object(catalog.schemas(), found.root, document);
            let _ = resolve(catalog.schemas(), found.root, "/spec/template/spec/containers/0/env/-");
        }
        let _ = from_node::<PropagationPolicyDoc>(document, Fields::Strict);
        let _ = from_node::<KarmadaClusterDoc>(document, Fields::Strict);
    }
});
