//! `garrison report --html`: the page's data, its bytes, the command line,
//! and what a real browser (headless Chromium) shows of it.

use crate::support::{copy_dir, read, render_to, run, stderr, stdout, temp, testdata};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn edit(path: &Path, from: &str, to: &str) {
    let text = read(path);
    assert!(text.contains(from), "{} has no `{from}`", path.display());
    if let Err(e) = std::fs::write(path, text.replacen(from, to, 1)) {
        panic!("cannot write {}: {e}", path.display());
    }
}

fn s(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// `garrison report --repo REPO --out OUT --html HTML EXTRA...`, which must succeed.
fn report(repo: &Path, out: &Path, html: &Path, extra: &[&str]) -> String {
    let (repo, out, page) = (s(repo), s(out), s(html));
    let mut args = vec!["report", "--repo", &repo, "--out", &out, "--html", &page];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    stdout(&output)
}

/// The data the page embeds.
fn data(html: &Path) -> Value {
    let page = read(html);
    let start = r#"<script type="application/json" id="garrison-data">"#;
    let Some(from) = page.find(start).map(|i| i + start.len()) else {
        panic!("{} embeds no data", html.display());
    };
    let Some(len) = page[from..].find("</script>") else {
        panic!("the data element of {} is not closed", html.display());
    };
    match serde_json::from_str(&page[from..from + len]) {
        Ok(value) => value,
        Err(e) => panic!("the embedded data is not JSON: {e}"),
    }
}

/// A copy of the example fleet `name` (under `testdata/`), rendered into
/// `out` next to it: the stored render a report compares with.
fn rendered_copy(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let repo = dir.join(format!("{name}-repo"));
    copy_dir(&testdata().join(name).join("repo"), &repo);
    let out = dir.join(format!("{name}-out"));
    let output = render_to(&repo, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    (repo, out)
}

/// The example fleet with `storefront`'s replicas raised from 24 to 30
/// since its stored render.
fn changed_fleet(dir: &Path) -> (PathBuf, PathBuf) {
    let (repo, out) = rendered_copy(dir, "fleet");
    edit(
        &repo.join("apps/storefront.yaml"),
        "replicas: 24",
        "replicas: 30",
    );
    (repo, out)
}

#[test]
fn report_help() {
    // The help names the variables' values: none here.
    let output = crate::support::garrison()
        .args(["report", "--help"])
        .env_remove("GARRISON_CACHE_DIR")
        .env_remove("GARRISON_STRICT")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(output.status.success());
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn a_report_without_a_stored_render_exits_2_and_writes_nothing() {
    let dir = temp();
    let repo = s(&testdata().join("duplicated/repo"));
    let page = dir.path().join("report.html");
    let missing = s(&dir.path().join("nope"));
    for target in [["--out", missing.as_str()], ["--branch", "no-such-branch"]] {
        let mut args = vec!["report", "--repo", &repo, "--html"];
        let page = s(&page);
        args.push(&page);
        args.extend(target);
        let output = run(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("render it first"),
            "{}",
            stderr(&output)
        );
    }
    // Neither `--out` nor `--branch`, or no `--html`: the argument parser refuses.
    for args in [
        vec!["report", "--repo", &repo, "--html", "x.html"],
        vec!["report", "--repo", &repo, "--out", "out"],
    ] {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    assert!(!page.exists(), "nothing may be written on error");
    assert_eq!(
        std::fs::read_dir(dir.path())
            .map(|d| d.count())
            .unwrap_or(0),
        0,
        "no partial file is left"
    );
}

#[test]
fn a_report_of_inputs_with_errors_exits_2_and_writes_nothing() {
    let dir = temp();
    let (repo, out) = rendered_copy(dir.path(), "duplicated");
    std::fs::write(repo.join("broken.yaml"), "kind: [\n").unwrap_or_else(|e| panic!("{e}"));
    let page = dir.path().join("report.html");
    let output = run(&[
        "report",
        "--repo",
        &s(&repo),
        "--out",
        &s(&out),
        "--html",
        &s(&page),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("G0101"), "{}", stderr(&output));
    assert!(!page.exists());
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let dir = temp();
    let (repo, out) = changed_fleet(dir.path());
    let (first, second) = (dir.path().join("a.html"), dir.path().join("b.html"));
    report(&repo, &out, &first, &[]);
    // Later, with the parse cache warm and another render order of threads.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let output = crate::support::garrison()
        .args(["report", "--repo", &s(&repo), "--out", &s(&out), "--html"])
        .arg(&second)
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(output.status.success(), "{}", stderr(&output));
    let (a, b) = (read(&first), read(&second));
    assert!(a == b, "two reports of the same inputs differ");
    // Nothing that looks like a time or date.
    let year =
        regex::Regex::new(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]").unwrap_or_else(|e| panic!("{e}"));
    assert!(!year.is_match(&a), "the report holds a date");
    // Self-contained: nothing is fetched.
    for remote in [
        "http://", "https://", "//fonts.", "@import", "<link", " src=",
    ] {
        assert!(!a.contains(remote), "the report refers to `{remote}`");
    }
}

#[test]
fn the_report_counts_what_diff_counts() {
    let dir = temp();
    let (repo, out) = changed_fleet(dir.path());
    let page = dir.path().join("report.html");
    let said = report(&repo, &out, &page, &[]);
    let diff = run(&["diff", "--json", "--repo", &s(&repo), "--out", &s(&out)]);
    assert!(diff.status.success(), "{}", stderr(&diff));
    let diff: Value = serde_json::from_str(&stdout(&diff)).unwrap_or_else(|e| panic!("{e}"));
    let summary = &diff["summary"];
    let sum = |counts: &Value, field: &str| -> u64 {
        counts
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
            .map(|c| c[field].as_u64().unwrap_or(0))
            .sum()
    };
    let data = data(&page);
    let totals = &data["totals"];
    for field in ["added", "changed", "removed"] {
        assert_eq!(
            totals[field].as_u64(),
            Some(sum(&summary["clusters"], field)),
            "{field}"
        );
    }
    let held: u64 = ["added", "changed", "removed"]
        .iter()
        .map(|f| sum(&summary["held_back"], f))
        .sum();
    assert_eq!(totals["heldBack"].as_u64(), Some(held));
    assert!(held > 0 && totals["changed"].as_u64() > Some(0), "{totals}");
    assert_eq!(
        said,
        format!(
            "wrote {}: 12 clusters, 10 applications; 0 added, {} changed, 0 removed, {held} held back\n",
            page.display(),
            totals["changed"]
        )
    );
    // The cells flagged changed are the files diff counts, cluster by cluster.
    let clusters: Vec<String> = data["clusters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["name"].as_str().unwrap_or("").to_string())
        .collect();
    let mut changed: BTreeMap<String, u64> = BTreeMap::new();
    for row in data["rows"].as_array().into_iter().flatten() {
        let tokens: Vec<&str> = row["cells"].as_str().unwrap_or("").split(',').collect();
        assert_eq!(tokens.len(), clusters.len());
        for (token, cluster) in tokens.iter().zip(&clusters) {
            if token.contains('c') {
                *changed.entry(cluster.clone()).or_default() += 1;
            }
        }
    }
    for (cluster, counts) in summary["clusters"].as_object().into_iter().flatten() {
        assert_eq!(
            changed.get(cluster).copied().unwrap_or(0),
            counts["changed"].as_u64().unwrap_or(0),
            "{cluster}"
        );
    }
}

/// Both dialects in one fleet, changed since its stored render: Karmada's
/// `api` and Clusternet's `worker` rescaled, and the ManagedCluster
/// `m-west` paused, holding `worker`'s change back.
#[test]
fn report_data_of_a_mixed_fleet() {
    let dir = temp();
    let (repo, out) = rendered_copy(dir.path(), "clusternet-mixed");
    edit(&repo.join("apps.yaml"), "replicas: 6", "replicas: 9");
    edit(&repo.join("apps.yaml"), "replicas: 5", "replicas: 7");
    edit(
        &repo.join("clusters.yaml"),
        "  clusterId: 6f3c1d2e-1111-4a4a-9b9b-000000000002\n",
        "  clusterId: 6f3c1d2e-1111-4a4a-9b9b-000000000002\n  syncPaused: true\n",
    );
    let page = dir.path().join("report.html");
    report(&repo, &out, &page, &[]);
    let mut data = data(&page);
    data["against"] = Value::String("[OUT]".into());
    data["garrison"] = Value::String("[VERSION]".into());
    let text = serde_json::to_string_pretty(&data).unwrap_or_default();
    insta::assert_snapshot!(text);
}

// --- in a browser ---------------------------------------------------------

/// Headless Chromium: Debian's `chromium` package (`.ci/test` installs it).
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            if dir.join(name).is_file() {
                return dir.join(name);
            }
        }
    }
    panic!(
        "headless Chromium is required by the report's browser tests and is not on the PATH: \
         install Debian's `chromium` package (`apt-get install -y chromium`; `.ci/test` does it when run as root)"
    );
}

/// The document as Chromium has it once `url` loaded and its script ran.
fn dump_dom(url: &str) -> String {
    dump_dom_in(url, "1600,1000")
}

/// [`dump_dom`] in a window of `size` (`WIDTH,HEIGHT`).
fn dump_dom_in(url: &str, size: &str) -> String {
    let profile = temp();
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
        ])
        .arg(format!("--window-size={size}"))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("cannot run chromium: {e}"));
    assert!(
        output.status.success(),
        "chromium failed: {}",
        stderr(&output)
    );
    let dom = stdout(&output);
    assert!(
        dom.contains("id=\"garrison-data\""),
        "not the report: {dom}"
    );
    dom
}

fn file_url(path: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", path.display())
}

/// What the page drew: per row key, per cluster, the cell's classes and text.
struct Drawn {
    cells: BTreeMap<(String, String), (String, String)>,
    columns: BTreeMap<String, String>,
    shown: String,
    dom: String,
}

fn drawn(dom: &str) -> Drawn {
    let attribute = |tag: &str, name: &str| -> String {
        let needle = format!("{name}=\"");
        tag.find(&needle)
            .map(|i| {
                let rest = &tag[i + needle.len()..];
                rest[..rest.find('"').unwrap_or(0)].to_string()
            })
            .unwrap_or_default()
    };
    let unescape = |s: &str| {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    };
    // The drawn part of the page, before its data and script.
    let dom = dom
        .split_once("<script type=\"application/json\"")
        .map_or(dom, |(page, _)| page);
    let mut cells = BTreeMap::new();
    let mut columns = BTreeMap::new();
    for row in dom.split("<div class=\"row").skip(1) {
        let key = unescape(&attribute(row, "data-key"));
        for cell in row.split("<a class=\"cell").skip(1) {
            let classes = cell[..cell.find('"').unwrap_or(0)].trim().to_string();
            let cluster = unescape(&attribute(cell, "data-c"));
            let text = cell
                .split_once('>')
                .map(|(_, rest)| rest[..rest.find('<').unwrap_or(0)].to_string())
                .unwrap_or_default();
            cells.insert((key.clone(), cluster), (classes, unescape(&text)));
        }
    }
    for column in dom.split("<a class=\"col").skip(1) {
        let classes = column[..column.find('"').unwrap_or(0)].trim().to_string();
        columns.insert(unescape(&attribute(column, "data-c")), classes);
    }
    let shown = dom
        .split_once("<span id=\"shown\">")
        .map(|(_, rest)| rest[..rest.find('<').unwrap_or(0)].to_string())
        .unwrap_or_default();
    Drawn {
        cells,
        columns,
        shown,
        dom: dom.to_string(),
    }
}

impl Drawn {
    fn cell(&self, key: &str, cluster: &str) -> (&str, &str) {
        match self.cells.get(&(key.to_string(), cluster.to_string())) {
            Some((classes, text)) => (classes, text),
            None => ("", ""),
        }
    }
}

#[test]
fn the_example_fleets_report_shows_in_a_browser() {
    let dir = temp();
    let (repo, out) = changed_fleet(dir.path());
    let page = dir.path().join("fleet.html");
    report(&repo, &out, &page, &[]);
    let shown = drawn(&dump_dom(&file_url(&page, "")));
    assert_eq!(shown.shown, "showing 10 of 10 rows, 12 of 12 clusters");
    // Storefront's 30 replicas divided by tier weights, changed from 24's.
    assert_eq!(
        shown.cell("Deployment/shop/storefront", "us-east-1a"),
        ("changed", "5")
    );
    assert_eq!(
        shown.cell("Deployment/shop/storefront", "eu-central-1"),
        ("", "3")
    );
    assert_eq!(
        shown.cell("Deployment/shop/storefront", "edge-lab"),
        ("", ""),
        "not selected"
    );
    // The paused cluster: its column marked, storefront's share held back
    // there (nothing delivered on a first render).
    assert_eq!(
        shown.columns.get("us-west-2").map(String::as_str),
        Some("paused")
    );
    assert_eq!(
        shown.columns.get("us-east-1a").map(String::as_str),
        Some("")
    );
    assert_eq!(
        shown.cell("Deployment/shop/storefront", "us-west-2"),
        ("ghost heldback", "3")
    );
    // The payments Rollout's fort, its 4 replicas divided 2:1 by its
    // customization; an object without replicas is a dot.
    assert_eq!(
        shown.cell("Rollout/shop/payments", "us-east-1a"),
        ("fort", "3")
    );
    assert_eq!(shown.cell("Rollout/shop/payments", "us-east-1b"), ("", "1"));
    assert_eq!(
        shown.cell("DaemonSet/monitoring/node-exporter", "edge-lab"),
        ("", "\u{25CF}")
    );
    assert!(shown.dom.contains("6 changed</span>"), "{}", shown.dom);

    // A filter from the fragment: Deployments of `shop` on the EU clusters.
    let filtered = drawn(&dump_dom(&file_url(
        &page,
        "#ns=shop&kind=Deployment&cluster=eu-",
    )));
    assert_eq!(filtered.shown, "showing 1 of 10 rows, 4 of 12 clusters");
    let clusters: Vec<&str> = filtered.columns.keys().map(String::as_str).collect();
    assert_eq!(
        clusters,
        ["eu-central-1", "eu-north-1", "eu-west-1a", "eu-west-1b"]
    );
    let keys: std::collections::BTreeSet<&str> =
        filtered.cells.keys().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys.into_iter().collect::<Vec<_>>(),
        ["Deployment/shop/storefront"]
    );

    // Changed rows only; one cluster, exactly.
    let changed = drawn(&dump_dom(&file_url(
        &page,
        "#changed=1&cluster=%3Dus-east-1a",
    )));
    assert_eq!(changed.shown, "showing 1 of 10 rows, 1 of 12 clusters");

    // The explanation a cell links to, opened from the fragment.
    let opened = dump_dom(&file_url(&page, "#app=Rollout/shop/payments"));
    let explained = run(&[
        "explain",
        "--repo",
        &s(&repo),
        "--out",
        &s(&out),
        "Rollout/shop/payments",
    ]);
    assert!(explained.status.success(), "{}", stderr(&explained));
    let text = opened
        .split_once("<pre id=\"explain-text\">")
        .map(|(_, rest)| rest[..rest.find("</pre>").unwrap_or(0)].to_string())
        .unwrap_or_default();
    assert_eq!(
        text.replace("&gt;", ">")
            .replace("&lt;", "<")
            .replace("&quot;", "\"")
            .replace("&amp;", "&"),
        stdout(&explained)
    );
    assert!(
        opened.contains("<aside id=\"explain\">"),
        "the panel is open"
    );
    assert!(
        shown
            .dom
            .contains("href=\"#app=Rollout%2Fshop%2Fpayments\""),
        "a cell links to its explanation"
    );
}

#[test]
fn the_clusternet_example_shows_like_the_karmada_one() {
    let dir = temp();
    let (repo, out) = rendered_copy(dir.path(), "clusternet");
    let page = dir.path().join("clusternet.html");
    report(&repo, &out, &page, &[]);
    let shown = drawn(&dump_dom(&file_url(&page, "")));
    assert_eq!(shown.shown, "showing 6 of 6 rows, 4 of 4 clusters");
    assert_eq!(
        shown.columns.get("gz-1").map(String::as_str),
        Some("paused")
    );
    assert_eq!(
        shown.cell("Deployment/shop/checkout", "sh-1"),
        ("fort", "6")
    );
    assert_eq!(shown.cell("Deployment/shop/checkout", "bj-edge"), ("", "2"));
    assert_eq!(shown.cell("Deployment/shop/checkout", "bj-1"), ("", "1"));
    assert_eq!(
        shown.cell("Service/shop/checkout", "sh-1"),
        ("fort", "\u{25CF}")
    );
    // The Localization sets 5 replicas on sh-1; the binding's share is 3.
    assert_eq!(shown.cell("Deployment/shop/storefront", "sh-1"), ("", "5"));
    assert!(
        shown.dom.contains("title=\"Deployment/shop/storefront on sh-1\n5 replicas\nthe binding gives 3; an override sets 5\""),
        "{}",
        shown.dom
    );
    assert_eq!(shown.cell("Deployment/shop/storefront", "bj-1"), ("", "3"));
    assert_eq!(
        shown.cell("Deployment/shop/storefront", "gz-1"),
        ("ghost heldback", "3"),
        "held back on the paused cluster"
    );
    assert!(
        shown.dom.contains("Subscription/shop/checkout"),
        "the Subscription is named as a policy is"
    );
}

/// Every explanation the page decodes is the text `garrison explain` prints.
#[test]
fn every_explanation_in_the_page_is_what_explain_prints() {
    let dir = temp();
    for (name, (repo, out)) in [
        ("fleet", changed_fleet(dir.path())),
        ("clusternet", rendered_copy(dir.path(), "clusternet")),
        (
            "clusternet-mixed",
            rendered_copy(dir.path(), "clusternet-mixed"),
        ),
    ] {
        let page = dir.path().join(format!("{name}.html"));
        report(&repo, &out, &page, &[]);
        // The page, with a script after its own that writes every row's
        // explanation into the document.
        let harness = dir.path().join(format!("{name}-all.html"));
        let all = r#"<script>
document.body.insertAdjacentHTML('beforeend', '<div id="all"></div>');
JSON.parse(document.getElementById('garrison-data').textContent).rows.forEach(function (row) {
  var pre = document.createElement('pre');
  pre.className = 'explained';
  pre.setAttribute('data-key', row.key);
  pre.textContent = window.garrisonExplanation(row.key) || '(none)';
  document.getElementById('all').appendChild(pre);
});
</script>
</body>"#;
        let text = read(&page).replacen("</body>", all, 1);
        std::fs::write(&harness, text).unwrap_or_else(|e| panic!("{e}"));
        let dom = dump_dom(&file_url(&harness, ""));
        let data = data(&page);
        let mut checked = 0;
        let mut deltas = 0;
        for piece in dom.split("<pre class=\"explained\" data-key=\"").skip(1) {
            let (key, rest) = piece.split_once("\">").unwrap_or_default();
            let shown = rest[..rest.find("</pre>").unwrap_or(0)]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&");
            let row = data["rows"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["key"] == key)
                .cloned()
                .unwrap_or_default();
            if row["explanation"].is_null() {
                assert_eq!(shown, "(none)", "{name}: {key}");
                continue;
            }
            if row["explanation"][0] == 1 {
                deltas += 1;
            }
            let explained = run(&["explain", "--repo", &s(&repo), "--out", &s(&out), key]);
            assert!(explained.status.success(), "{key}: {}", stderr(&explained));
            assert_eq!(shown, stdout(&explained), "{name}: {key}");
            checked += 1;
        }
        assert!(checked >= 3, "{name}: only {checked} explanations checked");
        if name == "fleet" {
            assert!(
                deltas > 0,
                "no explanation was stored as another's differences"
            );
        }
    }
}

/// A fleet of the benchmark generator, 40 clusters × 150 templates: the
/// page draws the cells on screen only, and loads in good time.
#[test]
fn a_large_fleet_draws_only_what_is_on_screen() {
    use crate::bench_fleet::fleetgen;
    let dir = temp();
    let fleet = fleetgen::fleet(fleetgen::Spec::new(150, 40));
    fleet
        .write(dir.path())
        .unwrap_or_else(|e| panic!("cannot write the fleet: {e}"));
    let repo = dir.path().join("garrison");
    let out = dir.path().join("out");
    let output = render_to(&repo, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = dir.path().join("large.html");
    report(&repo, &out, &page, &[]);
    let data = data(&page);
    let rows = data["rows"].as_array().map(Vec::len).unwrap_or(0);
    assert!(rows >= 150, "{rows} rows");
    let size = std::fs::metadata(&page).map(|m| m.len()).unwrap_or(0);
    let dom = dump_dom(&file_url(&page, ""));
    let shown = drawn(&dom);
    assert_eq!(
        shown.shown,
        format!("showing {rows} of {rows} rows, 40 of 40 clusters")
    );
    let drawn_rows = dom.matches("<div class=\"row").count();
    assert!(
        drawn_rows > 20 && drawn_rows < 80,
        "{drawn_rows} of {rows} rows drawn"
    );
    let load = dom
        .split_once("data-load-ms=\"")
        .and_then(|(_, rest)| rest[..rest.find('"').unwrap_or(0)].parse::<u64>().ok());
    let Some(load) = load else {
        panic!("the page records no load time");
    };
    assert!(load < 10_000, "loaded in {load} ms");
    // Some 6,000 cells and 150 explanations of 40 clusters each.
    assert!(size < 400_000, "{size} bytes");
}

/// How the page laid out its labels: per drawn row, the label's full
/// width (`scrollWidth`), its shown width (`clientWidth`) and its tooltip;
/// and the grid's shown width beside the matrix's whole width.
struct Labels {
    labels: BTreeMap<String, (u64, u64, String)>,
    grid: u64,
    matrix: u64,
}

/// The report `page` in a window `width` pixels wide, measured by a
/// script run after the page's own.
fn labels_in(page: &Path, width: u32) -> Labels {
    let harness = page.with_extension(format!("{width}.html"));
    let measure = r#"<script>
var measured = { labels: [], grid: document.getElementById('grid').clientWidth,
  matrix: document.getElementById('sizer').getBoundingClientRect().width };
document.querySelectorAll('#body .label').forEach(function (label) {
  measured.labels.push([label.parentNode.getAttribute('data-key'), label.scrollWidth, label.clientWidth,
    label.getAttribute('title')]);
});
var pre = document.createElement('pre');
pre.id = 'measured';
pre.textContent = JSON.stringify(measured);
document.body.appendChild(pre);
</script>
</body>"#;
    std::fs::write(&harness, read(page).replacen("</body>", measure, 1))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", harness.display()));
    let dom = dump_dom_in(&file_url(&harness, ""), &format!("{width},900"));
    let text = dom
        .split_once("<pre id=\"measured\">")
        .map(|(_, rest)| rest[..rest.find("</pre>").unwrap_or(0)].to_string())
        .unwrap_or_default()
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let value: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the measurements are not JSON ({e}): {text}"));
    let number = |v: &Value| v.as_f64().map_or(0, |n| n.round() as u64);
    let labels = value["labels"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| {
            let key = l[0].as_str().unwrap_or_default().to_string();
            let title = l[3].as_str().unwrap_or_default().to_string();
            (key, (number(&l[1]), number(&l[2]), title))
        })
        .collect();
    Labels {
        labels,
        grid: number(&value["grid"]),
        matrix: number(&value["matrix"]),
    }
}

/// A policy name is shown whole when the window has room for it beside
/// the clusters' columns, and cut short, whole in the tooltip, only when
/// it has not.
#[test]
fn a_long_policy_name_shows_whole_where_it_fits_and_in_its_tooltip_where_it_does_not() {
    let dir = temp();
    let (repo, out) = rendered_copy(dir.path(), "fleet");
    let long = "storefront-divided-by-tier-weights-over-every-production-cluster-of-the-fleet";
    edit(
        &repo.join("policies/propagation.yaml"),
        "  name: storefront\n  namespace: shop\nspec:",
        &format!("  name: {long}\n  namespace: shop\nspec:"),
    );
    let page = dir.path().join("long.html");
    report(&repo, &out, &page, &[]);
    let source = format!("PropagationPolicy/shop/{long}");
    let key = "Deployment/shop/storefront";

    let wide = labels_in(&page, 1600);
    let Some((full, shown, title)) = wide.labels.get(key) else {
        panic!("{key} is not drawn: {:?}", wide.labels.keys());
    };
    assert!(
        full <= shown,
        "clipped with room to spare: {full} px of text in {shown} px, the window {} px, the matrix {} px",
        wide.grid,
        wide.matrix
    );
    assert!(*shown > 360, "the label column did not widen: {shown} px");
    assert!(title.contains(&source), "{title}");
    for (row, (full, shown, _)) in &wide.labels {
        assert!(full <= shown, "{row} clipped: {full} px in {shown} px");
    }
    assert!(
        wide.matrix <= wide.grid,
        "the clusters no longer fit: {} px in {} px",
        wide.matrix,
        wide.grid
    );

    let narrow = labels_in(&page, 900);
    let Some((full, shown, title)) = narrow.labels.get(key) else {
        panic!("{key} is not drawn: {:?}", narrow.labels.keys());
    };
    assert!(
        full > shown,
        "{full} px of text in {shown} px: it cannot fit"
    );
    assert!(
        narrow.matrix <= narrow.grid,
        "the label pushed the clusters out of the window: {} px in {} px",
        narrow.matrix,
        narrow.grid
    );
    assert!(
        title.contains(&source),
        "the tooltip lacks the name: {title}"
    );
}

/// `testdata/migrate/export.yaml` imported into `dir/fleet` and rendered
/// into `dir/out`, the stored render a `--works` report compares with.
fn imported_and_rendered(dir: &Path) -> (PathBuf, PathBuf) {
    let fleet = crate::migrate::imported(dir);
    let out = dir.join("out");
    let output = render_to(&fleet, &out, &["-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    (fleet, out)
}

/// `report --works`: the page also compares the render with a Karmada
/// control plane's Works, as `verify` does: a line in the header, the cell
/// of an object Karmada delivers otherwise marked, and per cluster what
/// differs, with the diff.
#[test]
fn a_report_with_karmadas_works_shows_what_differs_from_them() {
    let dir = temp();
    let (fleet, out) = imported_and_rendered(dir.path());
    let page = dir.path().join("page.html");

    // Karmada's own Works: agreement, and nothing marked.
    let works = testdata().join("migrate/works.yaml");
    let printed = report(&fleet, &out, &page, &["--works", &s(&works)]);
    assert!(
        printed.contains("every cluster gets what Karmada delivers"),
        "{printed}"
    );
    let verify = &data(&page)["verify"];
    assert_eq!(verify["agrees"], true, "{verify}");
    let matching: Vec<u64> = verify["clusters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["matching"].as_u64().unwrap_or_default())
        .collect();
    assert_eq!(matching, [3, 3]);
    let shown = drawn(&dump_dom(&file_url(&page, "")));
    let marked = |shown: &Drawn| -> Vec<(String, String)> {
        shown
            .cells
            .iter()
            .filter(|(_, (classes, _))| classes.contains("kdiffers"))
            .map(|(at, _)| at.clone())
            .collect()
    };
    assert_eq!(marked(&shown), Vec::<(String, String)>::new());
    assert!(!shown.cells.is_empty(), "no cell drawn");
    assert!(
        shown
            .dom
            .contains("every cluster gets what Karmada delivers"),
        "{}",
        shown.dom
    );

    // One Work changed: exactly that cell marked, and the diff listed.
    let changed = crate::migrate::changed_works(dir.path());
    let printed = report(&fleet, &out, &page, &["--works", &s(&changed)]);
    assert!(
        printed.contains("1 of 1 difference(s) not explained"),
        "{printed}"
    );
    let data = data(&page);
    let difference = &data["verify"]["clusters"][1]["differences"][0];
    assert_eq!(difference["object"], "Deployment.apps/shop/web");
    let row = difference["row"].as_u64().unwrap_or(u64::MAX) as usize;
    assert_eq!(data["rows"][row]["name"], "web", "{difference}");
    let shown = drawn(&dump_dom(&file_url(&page, "#works=1")));
    assert_eq!(
        marked(&shown),
        [("Deployment/shop/web".to_string(), "member2".to_string())]
    );
    let panel = shown
        .dom
        .split_once("<aside id=\"works\"")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    assert!(!panel.starts_with(" hidden"), "the panel is closed");
    for expected in [
        "member1: 3 match",
        "member2: 2 match, 1 differs",
        "differs (not explained)",
        "-  replicas: 2",
        "+  replicas: 1",
    ] {
        assert!(panel.contains(expected), "no `{expected}` in {panel}");
    }
}

/// Works that are not Works stop the report at their line, as they stop
/// `verify`, and no page is written.
#[test]
fn a_report_with_works_that_are_not_works_exits_2_and_writes_nothing() {
    let dir = temp();
    let (fleet, out) = imported_and_rendered(dir.path());
    let works = dir.path().join("works.yaml");
    std::fs::write(
        &works,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-work\n  namespace: default\n",
    )
    .unwrap_or_else(|e| panic!("cannot write {}: {e}", works.display()));
    let page = dir.path().join("page.html");
    let (fleet, out, page_arg, works) = (s(&fleet), s(&out), s(&page), s(&works));
    let output = run(&[
        "report", "--repo", &fleet, "--out", &out, "--html", &page_arg, "--works", &works,
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("G0802"), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("works.yaml:1"),
        "{}",
        stderr(&output)
    );
    assert!(!page.exists(), "a page was written");
}
