//! The differential test against Karmada's own code: random cases from a
//! fixed seed, run through garrison in-process and through the oracle in
//! `conformance/karmada/` (Karmada's scheduler, policy matching, override
//! manager and interpreters, in one Go process), compared field by field.
//! `clusternet/` is the same for the Clusternet dialect, against
//! `conformance/clusternet/`.

mod clusternet;
mod compare;
mod coverage;
mod garrison;
mod generate;
mod migrate;
mod oracle;
pub(crate) mod stored;
mod widen;

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
/// The generated cases a default run compares (and the coverage run
/// answers again): seeds `0..GENERATED`.
pub(crate) const GENERATED: u64 = 2000;

/// The two-phase cases a default run compares: seeds `0..TWO_PHASE`.
pub(crate) const TWO_PHASE: u64 = 300;

#[test]
fn karmada_agrees_on_generated_cases() {
    let mut run = Run::from_env(GENERATED);
    let count = run.count();
    let mut oracle = oracle::Oracle::start();
    let mut member = stored::Member::start();
    let mut found = Vec::new();
    let mut oracle_time = std::time::Duration::ZERO;
    for seed in run.seeds.clone() {
        let case = generate::case(seed);
        run.record(&case);
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
        let (ours, theirs) = (member.karmada_answer(&ours), member.karmada_answer(&theirs));
        let differences = compare::divergences(&ours, &theirs);
        if let (false, Some(dir)) = (differences.is_empty(), &run.dump) {
            dump_case(dir, &seed.to_string(), "karmada", &case, &ours, &theirs);
        }
        found.extend(differences.into_iter().map(|d| format!("seed {seed}: {d}")));
    }
    run.finish();
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

/// The first schedule and the next: each generated case (phase A) is
/// rendered, then changed as a fleet changes between two renders
/// (`generate::changed`: workloads scaled, a placement edited, clusters
/// joining or leaving) and rendered again (phase B). garrison renders B
/// with A's output directory as its previous render, the oracle schedules
/// B with the bindings of its own answer to A (their clusters, observed
/// affinity group and applied placement), so Karmada's Steady division,
/// sticky affinity groups and the preference for clusters already
/// scheduled are compared. Both phases are compared; the seed range is
/// `GARRISON_CONFORMANCE_CASES` / `GARRISON_CONFORMANCE_SEED`, as for
/// [`karmada_agrees_on_generated_cases`].
#[test]
fn karmada_agrees_after_a_previous_schedule() {
    let run = Run::from_env(TWO_PHASE);
    let count = run.count();
    let mut oracle = oracle::Oracle::start();
    let mut member = stored::Member::start();
    let mut found = Vec::new();
    let started = std::time::Instant::now();
    let mut elapsed_in_oracle = std::time::Duration::ZERO;
    // Bound templates whose second schedule (Karmada's) is the first, and
    // those whose is not: how much the second phase moves.
    let (mut kept, mut changed, mut let_go) = (0, 0, 0);
    for seed in run.seeds.clone() {
        let case_a = generate::case(seed);
        let (case_b, changes) = generate::changed(seed, &case_a);
        let compared = in_turn(&mut oracle, &mut member, &case_a, case_b);
        elapsed_in_oracle += compared.oracle_time;
        kept += compared.kept;
        changed += compared.changed;
        let_go += compared.let_go;
        if let (false, Some(dir)) = (compared.found.is_empty(), &run.dump) {
            compared.dump(dir, &seed.to_string());
        }
        let changes = changes.join("; ");
        found.extend(
            compared
                .found
                .into_iter()
                .map(|d| format!("seed {seed} ({changes}), {d}")),
        );
    }
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!(
        "karmada oracle, two phases: {count} cases in {elapsed:.1} s ({:.0} cases/s; the oracle {:.1} s of it); Karmada's second schedule is its first for {kept} bound templates and differs for {changed}; Karmada keeps delivering {let_go} templates that lost their policy, where garrison stops",
        count as f64 / elapsed.max(1e-9),
        elapsed_in_oracle.as_secs_f64()
    );
    assert!(
        found.is_empty(),
        "{} divergences in {count} two-phase cases (see conformance/karmada/DIVERGENCES.md):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// One case compared in two phases (see
/// [`karmada_agrees_after_a_previous_schedule`]).
struct InTurn {
    /// Every difference, after the phase it shows in.
    found: Vec<String>,
    first: generate::Case,
    /// The second case as the oracle got it (continuing the first).
    then: generate::Case,
    /// garrison's and Karmada's answers to each phase, when garrison
    /// rendered both.
    answers: Option<[serde_json::Value; 4]>,
    /// Bound templates whose second schedule (Karmada's) is the first,
    /// and those whose is not.
    kept: usize,
    changed: usize,
    /// Templates Karmada keeps delivering after they lost their policy
    /// (`compare::without_bindings_karmada_keeps`).
    let_go: usize,
    oracle_time: std::time::Duration,
}

/// `first`, then `then` on top of it, through garrison (its second render
/// reads the first's output directory) and the oracle (its second case
/// continues the first's control plane), compared on what the member
/// clusters store.
fn in_turn(
    oracle: &mut oracle::Oracle,
    member: &mut stored::Member,
    first: &generate::Case,
    then: generate::Case,
) -> InTurn {
    let timer = std::time::Instant::now();
    let theirs_a = oracle.answer(first);
    let then = then.continuing();
    let theirs_b = oracle.answer(&then);
    let oracle_time = timer.elapsed();
    let (kept, changed) = schedules_kept(&theirs_a, &theirs_b);
    let mut compared = InTurn {
        found: Vec::new(),
        first: first.clone(),
        then,
        answers: None,
        kept,
        changed,
        let_go: 0,
        oracle_time,
    };
    let dir = crate::support::temp();
    let (ours_a, ours_b) = match garrison::answers_in_turn(first, &compared.then, dir.path()) {
        Ok(answers) => answers,
        Err(why) if compare::karmada_fails_too(&why, &theirs_a) => return compared,
        Err(why) if why.starts_with("phase B") && compare::karmada_fails_too(&why, &theirs_b) => {
            return compared
        }
        Err(why) => {
            compared
                .found
                .push(format!("garrison refused the case: {why}"));
            return compared;
        }
    };
    let (ours_a, ours_b) = (
        member.karmada_answer(&ours_a),
        member.karmada_answer(&ours_b),
    );
    let (stored_a, stored_b) = (
        member.karmada_answer(&theirs_a),
        member.karmada_answer(&theirs_b),
    );
    let in_a = compare::divergences(&ours_a, &stored_a);
    compared.found = if in_a.is_empty() {
        let by_name = with_clusters_by_name(&compared.then);
        let fleet: Vec<&str> = compared
            .then
            .clusters
            .iter()
            .filter_map(|c| {
                c.pointer("/metadata/name")
                    .and_then(serde_json::Value::as_str)
            })
            .collect();
        let theirs_b = compare::without_clusters_that_left(&stored_b, &fleet);
        let (theirs_b, let_go) =
            compare::without_bindings_karmada_keeps(&stored_a, &theirs_b, &ours_b);
        compared.let_go = let_go;
        compare::divergences_after(&ours_b, &theirs_b, || {
            oracle.answer(&compared.first);
            let by_name = member.karmada_answer(&compare::without_clusters_that_left(
                &oracle.answer(&by_name),
                &fleet,
            ));
            compare::without_bindings_karmada_keeps(&stored_a, &by_name, &ours_b).0
        })
        .into_iter()
        .map(|d| format!("phase B: {d}"))
        .collect()
    } else {
        // Each side remembers its own first answer: once those differ, the
        // second ones say nothing more.
        in_a.into_iter().map(|d| format!("phase A: {d}")).collect()
    };
    compared.answers = Some([ours_a, stored_a, ours_b, stored_b]);
    compared
}

impl InTurn {
    /// The cases and answers as `<dir>/<stem>.{a,b}.{case,garrison,karmada}.json`.
    fn dump(&self, dir: &std::path::Path, stem: &str) {
        if let Some([ours_a, theirs_a, ours_b, theirs_b]) = &self.answers {
            dump_case(
                dir,
                &format!("{stem}.a"),
                "karmada",
                &self.first,
                ours_a,
                theirs_a,
            );
            dump_case(
                dir,
                &format!("{stem}.b"),
                "karmada",
                &self.then,
                ours_b,
                theirs_b,
            );
        }
    }
}

/// How many bound templates keep their clusters and replicas from one
/// answer to the next, and how many do not.
fn schedules_kept(before: &serde_json::Value, after: &serde_json::Value) -> (usize, usize) {
    let clusters = |r: &serde_json::Value| {
        let mut clusters = r["clusters"].as_array().cloned().unwrap_or_default();
        clusters.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        clusters
    };
    let (before, after) = (before["results"].as_array(), after["results"].as_array());
    let pairs = before
        .into_iter()
        .flatten()
        .zip(after.into_iter().flatten());
    let bound = pairs.filter(|(_, b)| !b["policy"].is_null() && b["skipped"].is_null());
    bound.fold((0, 0), |(kept, changed), (a, b)| {
        if clusters(a) == clusters(b) {
            (kept + 1, changed)
        } else {
            (kept, changed + 1)
        }
    })
}

/// `case` continuing the first one with each binding's clusters put in
/// name order first, as garrison's rendered bindings list them
/// (`compare::divergences_after`).
fn with_clusters_by_name(case: &generate::Case) -> generate::Case {
    generate::Case {
        clusters_by_name: true,
        ..case.continuing()
    }
}

/// Hand-written cases, one JSON file each (the oracle's input format, or
/// `{"first": case, "then": case}` for a case scheduled on top of another,
/// compared as [`karmada_agrees_after_a_previous_schedule`] compares), for
/// what the generator does not write: `conformance/karmada/testdata/cases`,
/// or the directory `GARRISON_CONFORMANCE_FILES` names (for instance
/// `conformance/karmada/testdata/divergences`, the known divergences, or a
/// diverging case being edited down).
#[test]
fn karmada_agrees_on_case_files() {
    let dir = std::env::var_os("GARRISON_CONFORMANCE_FILES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(case_files);
    let paths = case_file_paths(&dir);
    let mut oracle = oracle::Oracle::start();
    let mut member = stored::Member::start();
    let mut found = Vec::new();
    for path in &paths {
        let name = path.display();
        let case = match read_case_file(path) {
            CaseFile::One(case) => case,
            CaseFile::InTurn(first, then) => {
                let compared = in_turn(&mut oracle, &mut member, &first, then);
                if let Some(out) = std::env::var_os("GARRISON_CONFORMANCE_DUMP") {
                    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                    compared.dump(std::path::Path::new(&out), &stem);
                }
                found.extend(compared.found.into_iter().map(|d| format!("{name}: {d}")));
                continue;
            }
        };
        let work = crate::support::temp();
        let theirs = oracle.answer(&case);
        let ours = match garrison::answer(&case, work.path()) {
            Ok(answer) => answer,
            // Both refuse, and garrison's refusal names an object Karmada
            // refuses at admission (`rejected`) or a template whose Works
            // it keeps failing to write (`syncError`, e.g. an override
            // whose path does not exist, which garrison refuses up front,
            // SPEC §8). A refusal of anything else is a divergence.
            Err(why) if compare::karmada_fails_too(&why, &theirs) => continue,
            Err(why) => {
                found.push(format!("{name}: garrison refused the case: {why}"));
                continue;
            }
        };
        let (ours, theirs) = (member.karmada_answer(&ours), member.karmada_answer(&theirs));
        let differences = compare::divergences(&ours, &theirs);
        if let Some(out) = std::env::var_os("GARRISON_CONFORMANCE_DUMP") {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            dump_case(
                std::path::Path::new(&out),
                &stem,
                "karmada",
                &case,
                &ours,
                &theirs,
            );
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

/// The hand-written Karmada cases, `conformance/karmada/testdata/cases`.
pub(crate) fn case_files() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/karmada/testdata/cases")
}

/// The `.json` files of `dir`, in name order.
pub(crate) fn case_file_paths(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<std::path::PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) => panic!("cannot read {}: {e}", dir.display()),
    };
    paths.sort();
    paths
}

/// A case file: one case, or two in turn (`{"first": case, "then": case}`).
enum CaseFile {
    One(generate::Case),
    InTurn(generate::Case, generate::Case),
}

fn read_case_file(path: &std::path::Path) -> CaseFile {
    let name = path.display();
    let read = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            serde_json::from_str::<serde_json::Value>(&text).map_err(|e| e.to_string())
        });
    let value = match read {
        Ok(value) => value,
        Err(e) => panic!("{name}: {e}"),
    };
    if value.get("then").is_some() {
        match (
            serde_json::from_value(value["first"].clone()),
            serde_json::from_value(value["then"].clone()),
        ) {
            (Ok(first), Ok(then)) => CaseFile::InTurn(first, then),
            (Err(e), _) | (_, Err(e)) => panic!("{name}: {e}"),
        }
    } else {
        match serde_json::from_value(value) {
            Ok(case) => CaseFile::One(case),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

/// What a generated run takes from the environment: the seeds
/// (`GARRISON_CONFORMANCE_SEED`, `GARRISON_CONFORMANCE_CASES`), where to
/// keep diverging cases (`GARRISON_CONFORMANCE_DUMP`), and where to write
/// every case as one JSON line, the oracle's `--jsonl` input, to replay or
/// time the oracle on its own (`GARRISON_CONFORMANCE_CASES_OUT`).
pub(crate) struct Run {
    pub seeds: std::ops::Range<u64>,
    pub dump: Option<std::path::PathBuf>,
    cases_out: Option<std::io::BufWriter<std::fs::File>>,
}

impl Run {
    pub fn from_env(default_count: u64) -> Run {
        let number = |name: &str, default: u64| -> u64 {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        let count = number("GARRISON_CONFORMANCE_CASES", default_count);
        let first = number("GARRISON_CONFORMANCE_SEED", 0);
        let cases_out = std::env::var_os("GARRISON_CONFORMANCE_CASES_OUT").map(|path| {
            match std::fs::File::create(&path) {
                Ok(file) => std::io::BufWriter::new(file),
                Err(e) => panic!("cannot create {}: {e}", path.to_string_lossy()),
            }
        });
        Run {
            seeds: first..first + count,
            dump: std::env::var_os("GARRISON_CONFORMANCE_DUMP").map(std::path::PathBuf::from),
            cases_out,
        }
    }

    pub fn count(&self) -> u64 {
        self.seeds.end - self.seeds.start
    }

    /// Write `case` to `GARRISON_CONFORMANCE_CASES_OUT`, when it is set.
    pub fn record(&mut self, case: &impl serde::Serialize) {
        use std::io::Write;
        if let Some(out) = self.cases_out.as_mut() {
            let line = serde_json::to_string(case).unwrap_or_default();
            if let Err(e) = writeln!(out, "{line}") {
                panic!("cannot write a case: {e}");
            }
        }
    }

    /// Flush what [`Run::record`] wrote.
    pub fn finish(self) {
        use std::io::Write;
        if let Some(mut out) = self.cases_out {
            if let Err(e) = out.flush() {
                panic!("cannot write the cases: {e}");
            }
        }
    }
}

/// Keep a case and both answers, as `<dir>/<stem>.{case,garrison,<oracle>}.json`.
pub(crate) fn dump_case(
    dir: &std::path::Path,
    stem: &str,
    oracle: &str,
    case: &impl serde::Serialize,
    ours: &serde_json::Value,
    theirs: &serde_json::Value,
) {
    let write = |what: &str, text: String| {
        let path = dir.join(format!("{stem}.{what}.json"));
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
        oracle,
        serde_json::to_string_pretty(theirs).unwrap_or_default(),
    );
}
