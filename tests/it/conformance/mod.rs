//! The differential test against Karmada's own code: random cases from a
//! fixed seed, run through garrison in-process and through the oracle in
//! `conformance/karmada/` (Karmada's scheduler, policy matching, override
//! manager and interpreters, in one Go process), compared field by field.

mod compare;
mod garrison;
mod generate;
mod oracle;

/// Every generated case is input garrison accepts: a refusal here is a
/// generator bug (or garrison refusing what Karmada takes), never noise.
#[test]
fn generated_cases_are_valid_input() {
    let mut refused = Vec::new();
    let (mut templates, mut delivered) = (0, 0);
    for seed in 0..200 {
        let case = generate::case(seed);
        let dir = crate::support::temp();
        match garrison::answer(&case, dir.path()) {
            Ok(answer) => {
                let results = answer["results"].as_array().cloned().unwrap_or_default();
                templates += results.len();
                delivered += results
                    .iter()
                    .filter(|r| r["works"].as_array().is_some_and(|w| !w.is_empty()))
                    .count();
            }
            Err(why) => refused.push(format!("seed {seed}: {why}")),
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    // Cases where nothing is delivered test little: most templates must be.
    assert!(
        delivered * 2 > templates,
        "only {delivered} of {templates} templates were delivered anywhere"
    );
}

#[test]
fn a_seed_is_its_case() {
    let a = serde_json::to_string(&generate::case(7)).unwrap_or_default();
    let b = serde_json::to_string(&generate::case(7)).unwrap_or_default();
    assert_eq!(a, b);
    assert_ne!(
        a,
        serde_json::to_string(&generate::case(8)).unwrap_or_default()
    );
}

/// garrison and Karmada's own code agree on every generated case, modulo
/// the deliberate differences of `conformance/karmada/README.md`. The seed range is
/// fixed; `GARRISON_CONFORMANCE_CASES` and `GARRISON_CONFORMANCE_SEED` set a
/// longer run.
#[test]
fn karmada_agrees_on_generated_cases() {
    let count: u64 = std::env::var("GARRISON_CONFORMANCE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let first: u64 = std::env::var("GARRISON_CONFORMANCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // For triage: the case and both answers of every diverging seed, as
    // `<dir>/<seed>.{case,garrison,karmada}.json` (case files: every file,
    // by its name).
    let dump = std::env::var_os("GARRISON_CONFORMANCE_DUMP").map(std::path::PathBuf::from);
    // Every case as one JSON line, the oracle's --jsonl input, to replay
    // or time the oracle on its own.
    let mut cases_out =
        std::env::var_os("GARRISON_CONFORMANCE_CASES_OUT").map(|path| match std::fs::File::create(
            &path,
        ) {
            Ok(file) => std::io::BufWriter::new(file),
            Err(e) => panic!("cannot create {}: {e}", path.to_string_lossy()),
        });
    let mut oracle = oracle::Oracle::start();
    let mut found = Vec::new();
    let mut oracle_time = std::time::Duration::ZERO;
    for seed in first..first + count {
        let case = generate::case(seed);
        if let Some(out) = cases_out.as_mut() {
            use std::io::Write;
            let line = serde_json::to_string(&case).unwrap_or_default();
            if let Err(e) = writeln!(out, "{line}") {
                panic!("cannot write a case: {e}");
            }
        }
        let dir = crate::support::temp();
        let answer = garrison::answer(&case, dir.path());
        let started = std::time::Instant::now();
        let theirs = oracle.answer(&case);
        oracle_time += started.elapsed();
        let ours = match answer {
            Ok(answer) => answer,
            Err(why) if compare::karmada_fails_too(&why, &theirs) => continue,
            Err(why) => {
                found.push(format!("seed {seed}: garrison refused the case: {why}"));
                continue;
            }
        };
        let differences = compare::divergences(&ours, &theirs);
        if let (false, Some(dir)) = (differences.is_empty(), &dump) {
            dump_case(dir, &seed.to_string(), &case, &ours, &theirs);
        }
        found.extend(differences.into_iter().map(|d| format!("seed {seed}: {d}")));
    }
    if let Some(mut out) = cases_out {
        use std::io::Write;
        if let Err(e) = out.flush() {
            panic!("cannot write the cases: {e}");
        }
    }
    eprintln!(
        "karmada oracle: {count} cases in {:.1} s ({:.0} cases/s, round trips included)",
        oracle_time.as_secs_f64(),
        count as f64 / oracle_time.as_secs_f64().max(1e-9)
    );
    assert!(
        found.is_empty(),
        "{} divergences in {count} cases (see conformance/karmada/DIVERGENCES.md):\n{}",
        found.len(),
        found.join("\n")
    );
}

fn dump_case(
    dir: &std::path::Path,
    seed: &str,
    case: &generate::Case,
    ours: &serde_json::Value,
    theirs: &serde_json::Value,
) {
    let write = |what: &str, text: String| {
        let path = dir.join(format!("{seed}.{what}.json"));
        if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text)) {
            panic!("cannot write {}: {e}", path.display());
        }
    };
    write("case", serde_json::to_string(case).unwrap_or_default());
    write(
        "garrison",
        serde_json::to_string_pretty(ours).unwrap_or_default(),
    );
    write(
        "karmada",
        serde_json::to_string_pretty(theirs).unwrap_or_default(),
    );
}

/// Hand-written cases, one JSON file each (the oracle's input format), for
/// what the generator does not write: `conformance/karmada/testdata/cases`,
/// or the directory `GARRISON_CONFORMANCE_FILES` names (for instance
/// `conformance/karmada/testdata/divergences`, the known divergences, or a
/// diverging case being edited down).
#[test]
fn karmada_agrees_on_case_files() {
    let dir = std::env::var_os("GARRISON_CONFORMANCE_FILES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("conformance/karmada/testdata/cases")
        });
    let mut paths: Vec<std::path::PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) => panic!("cannot read {}: {e}", dir.display()),
    };
    paths.sort();
    let mut oracle = oracle::Oracle::start();
    let mut found = Vec::new();
    for path in &paths {
        let name = path.display();
        let case: generate::Case = match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
        {
            Ok(case) => case,
            Err(e) => panic!("{name}: {e}"),
        };
        let work = crate::support::temp();
        let theirs = oracle.answer(&case);
        let ours = match garrison::answer(&case, work.path()) {
            Ok(answer) => answer,
            // Both refuse: what garrison refuses need not be what Karmada
            // names, the refusal is what matters. Karmada refuses at
            // admission (`rejected`) or keeps failing to write the Works
            // (`syncError`, e.g. an override whose path does not exist,
            // which garrison refuses up front, SPEC §8).
            Err(_) if karmada_refuses(&theirs) => continue,
            Err(why) => {
                found.push(format!("{name}: garrison refused the case: {why}"));
                continue;
            }
        };
        let differences = compare::divergences(&ours, &theirs);
        if let Some(out) = std::env::var_os("GARRISON_CONFORMANCE_DUMP") {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            dump_case(std::path::Path::new(&out), &stem, &case, &ours, &theirs);
        }
        found.extend(differences.into_iter().map(|d| format!("{name}: {d}")));
    }
    assert!(
        found.is_empty(),
        "{} divergences in {} files:\n{}",
        found.len(),
        paths.len(),
        found.join("\n")
    );
}

/// Whether Karmada refuses part of a case: an object its API server does
/// not admit, or a binding whose Works it cannot write.
fn karmada_refuses(answer: &serde_json::Value) -> bool {
    answer["rejected"].as_array().is_some_and(|r| !r.is_empty())
        || answer["results"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["syncError"].is_string())
}
