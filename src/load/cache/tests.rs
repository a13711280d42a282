use super::*;
use crate::load::yaml::parse_stream;
use proptest::prelude::*;
use std::cell::Cell;

const SOURCE: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  n: \"1\"\n  list: [1, -2, 2.5, true, null, x]\n---\nkind: Namespace\n";

fn parsed(text: &str) -> Vec<Node> {
    parse_stream(text, &Limits::default()).unwrap()
}

fn binding() -> (ObjectKey, BindingRecord) {
    let key = ObjectKey {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        namespace: Some("shop".into()),
        name: "web".into(),
    };
    let binding = BindingRecord {
        policy: Some(crate::model::record::PolicyRef {
            name: "web".into(),
            namespace: Some("shop".into()),
        }),
        pinned: true,
        workload: true,
        clusters: vec![("a".into(), 2), ("b".into(), 0)],
        replicas: 2,
        placement: Some("{\"clusterAffinity\":{}}".into()),
        affinity_name: None,
        fort: Some("a".into()),
        held: ["b".to_string()].into_iter().collect(),
        required: ["b".to_string()].into_iter().collect(),
        withheld: Some(["c".to_string()].into_iter().collect()),
        digest: Some("abc".into()),
        subscriptions: vec!["Subscription/apps/web".into()],
    };
    (key, binding)
}

/// A cache directory holding the parse of [`SOURCE`].
fn saved_source() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path());
    parses(&cache, SOURCE);
    cache.save().unwrap();
    dir
}

/// Look `text` up in `cache`; true when it had to be parsed.
fn parses(cache: &Cache, text: &str) -> bool {
    let called = Cell::new(false);
    let documents = cache
        .documents(text, &Limits::default(), || {
            called.set(true);
            parse_stream(text, &Limits::default())
        })
        .unwrap();
    assert_eq!(documents, parsed(text));
    called.get()
}

#[test]
fn documents_round_trip_with_their_positions() {
    let documents = parsed(SOURCE);
    assert_eq!(
        decode_documents(&encode_documents(&documents), 64),
        Some(documents)
    );
}

#[test]
fn bindings_round_trip_and_so_does_a_file_that_is_not_one() {
    let binding = binding();
    assert_eq!(
        decode_binding(&encode_binding(Some(&binding))),
        Some(Some(binding.clone()))
    );
    // An older binding without a record of withheld clusters stays without one.
    let (key, older) = binding;
    let older = (
        key,
        BindingRecord {
            withheld: None,
            ..older
        },
    );
    assert_eq!(
        decode_binding(&encode_binding(Some(&older))),
        Some(Some(older))
    );
    assert_eq!(decode_binding(&encode_binding(None)), Some(None));
}

#[test]
fn every_truncated_or_extended_payload_is_refused() {
    let payload = encode_documents(&parsed(SOURCE));
    for end in 0..payload.len() {
        assert_eq!(decode_documents(&payload[..end], 64), None, "prefix {end}");
    }
    let mut longer = payload.clone();
    longer.push(0);
    assert_eq!(decode_documents(&longer, 64), None);
    let binding = encode_binding(Some(&binding()));
    for end in 0..binding.len() {
        assert_eq!(decode_binding(&binding[..end]), None, "prefix {end}");
    }
}

#[test]
fn a_payload_deeper_than_the_parse_allowed_is_refused() {
    let deep = "a:\n  b:\n    c:\n      d: 1\n";
    let payload = encode_documents(&parsed(deep));
    assert!(decode_documents(&payload, 3).is_some());
    assert_eq!(decode_documents(&payload, 1), None);
}

#[test]
fn an_existing_directory_gets_only_the_cache_file() {
    let dir = saved_source();
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, [FILE]);
}

#[test]
fn a_saved_file_is_served_from_the_cache_by_the_next_run() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("cache");
    let cache = Cache::open(&dir);
    assert!(parses(&cache, SOURCE));
    cache.save().unwrap();
    let cache = Cache::open(&dir);
    assert!(!parses(&cache, SOURCE));
    assert!(parses(&cache, "kind: Other\n"));
    // A directory garrison made is marked as a cache...
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
    assert!(dir.join("CACHEDIR.TAG").is_file());
    // ...but one that existed is left as it was.
    assert!(!temp.path().join(".gitignore").exists());
}

#[test]
fn other_limits_are_another_key() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path());
    assert!(parses(&cache, SOURCE));
    cache.save().unwrap();
    let cache = Cache::open(dir.path());
    let limits = Limits {
        max_nodes: 10,
        ..Limits::default()
    };
    let called = Cell::new(false);
    let result = cache.documents(SOURCE, &limits, || {
        called.set(true);
        parse_stream(SOURCE, &limits)
    });
    assert!(called.get());
    assert!(
        result.is_err(),
        "the tighter limit must still refuse the file"
    );
}

#[test]
fn parse_errors_are_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let bad = "a: [1\n";
    for _ in 0..2 {
        let cache = Cache::open(dir.path());
        let called = Cell::new(false);
        let result = cache.documents(bad, &Limits::default(), || {
            called.set(true);
            parse_stream(bad, &Limits::default())
        });
        assert!(called.get() && result.is_err());
        cache.save().unwrap();
    }
}

#[test]
fn a_damaged_cache_file_is_not_used() {
    let dir = saved_source();
    let file = dir.path().join(FILE);
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let cache = Cache::open(dir.path());
    assert!(cache.index.is_empty());
    assert!(parses(&cache, SOURCE));
    cache.save().unwrap();
    assert!(
        !parses(&Cache::open(dir.path()), SOURCE),
        "saving repairs it"
    );
}

#[test]
fn unused_entries_go_unless_their_kind_was_not_looked_up() {
    let dir = tempfile::tempdir().unwrap();
    let (key, binding) = binding();
    let cache = Cache::open(dir.path());
    parses(&cache, SOURCE);
    let bytes = b"a binding file";
    cache.binding(bytes, || Some((key.clone(), binding.clone())));
    cache.save().unwrap();

    // A run that reads only source (`validate`) keeps the binding.
    let cache = Cache::open(dir.path());
    assert!(parses(&cache, "kind: Other\n"));
    cache.save().unwrap();
    let cache = Cache::open(dir.path());
    let reparsed = Cell::new(false);
    let served = cache.binding(bytes, || {
        reparsed.set(true);
        None
    });
    assert!(!reparsed.get());
    assert_eq!(served, Some((key, binding)));
    // ...but drops the source file it no longer read.
    assert!(parses(&cache, SOURCE));
    assert!(!parses(&cache, "kind: Other\n"));
}

#[test]
fn a_cache_that_cannot_be_written_costs_only_speed() {
    let dir = tempfile::tempdir().unwrap();
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "").unwrap();
    let cache = Cache::open(&blocked.join("cache"));
    assert!(parses(&cache, SOURCE));
    assert!(cache.save().is_err());
}

#[test]
fn without_a_directory_nothing_is_kept() {
    let cache = Cache::disabled();
    assert!(parses(&cache, SOURCE));
    assert!(parses(&cache, SOURCE));
    assert!(cache.fresh.lock().unwrap().is_empty(), "nothing remembered");
    cache.save().unwrap();
}

fn node() -> impl Strategy<Value = Node> {
    let pos = (0u32..5000, 0u32..300).prop_map(|(line, column)| Pos { line, column });
    let leaf = prop_oneof![
        Just(NodeKind::Null),
        any::<bool>().prop_map(NodeKind::Bool),
        any::<u64>().prop_map(|n| NodeKind::Number(n.into())),
        any::<i64>().prop_map(|n| NodeKind::Number(n.into())),
        (-1e300f64..1e300).prop_map(|f| NodeKind::Number(Number::from_f64(f).unwrap())),
        ".{0,12}".prop_map(NodeKind::String),
    ];
    let leaf = (pos.clone(), leaf).prop_map(|(pos, kind)| Node { pos, kind });
    leaf.prop_recursive(4, 48, 6, move |inner| {
        let key_pos = (0u32..5000, 0u32..300).prop_map(|(line, column)| Pos { line, column });
        prop_oneof![
            (key_pos.clone(), prop::collection::vec(inner.clone(), 0..6)).prop_map(
                |(pos, items)| Node {
                    pos,
                    kind: NodeKind::Seq(items)
                }
            ),
            (
                key_pos.clone(),
                prop::collection::vec(("[a-z]{0,6}", key_pos, inner), 0..6)
            )
                .prop_map(|(pos, entries)| Node {
                    pos,
                    kind: NodeKind::Map(entries)
                }),
        ]
    })
}

proptest! {
    #[test]
    fn any_documents_round_trip(documents in prop::collection::vec(node(), 0..4)) {
        let payload = encode_documents(&documents);
        prop_assert_eq!(decode_documents(&payload, 64), Some(documents));
    }

    #[test]
    fn arbitrary_bytes_are_refused_or_read_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        if let Some(documents) = decode_documents(&bytes, 64) {
            prop_assert_eq!(decode_documents(&encode_documents(&documents), 64), Some(documents));
        }
        let _ = decode_binding(&bytes);
        let _ = index_of(&bytes);
    }
}

#[test]
fn an_entry_that_does_not_decode_is_replaced_by_the_fresh_parse() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits::default();
    let cache = Cache::open(dir.path());
    let key = key(Kind::Source, &limits_bytes(&limits), SOURCE.as_bytes());
    cache.remember(key, Kind::Source, vec![0xff]);
    cache.save().unwrap();
    let cache = Cache::open(dir.path());
    assert_eq!(cache.index.len(), 1);
    assert!(parses(&cache, SOURCE), "a bad entry is a miss");
    cache.save().unwrap();
    assert!(!parses(&Cache::open(dir.path()), SOURCE), "and is replaced");
}

#[test]
fn temporary_files_left_by_a_killed_run_are_swept_once_old() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join(format!("{FILE}.1-0-0.tmp"));
    std::fs::write(&stale, b"half").unwrap();
    let fresh = dir.path().join(format!("{FILE}.2-0-0.tmp"));
    std::fs::write(&fresh, b"being written").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let cache = Cache::open(dir.path());
    parses(&cache, SOURCE);
    cache.save().unwrap();
    assert!(!stale.exists());
    assert!(fresh.exists(), "another run's file being written is left");
}
