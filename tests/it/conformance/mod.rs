//! The differential test against Karmada's own code: random cases from a
//! fixed seed, run through garrison in-process and through the oracle in
//! `conformance/karmada/` (Karmada's scheduler, policy matching, override
//! manager and interpreters, in one Go process), compared field by field.

mod garrison;
mod generate;

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
