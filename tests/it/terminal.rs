//! The spinner in a real terminal: garrison runs under `script(1)`, which
//! gives it a pseudo-terminal, so the spinner draws as a user sees it. The
//! bytes it wrote are played on [`Screen`], a small terminal, and the
//! screen left must be the one a run without a spinner (`CI` set) leaves:
//! a spinner line never erased would stay above the errors, or share a line
//! with the first of them. Each run must have drawn the spinner, or it
//! would prove nothing.

use crate::support::{copy_dir, garrison, temp, testdata};
use std::path::Path;
use std::process::{Command, Stdio};

/// What the terminal shows once `bytes` were written to it: the lines,
/// trailing blanks cut, empty lines at the end dropped. It knows what
/// indicatif and the diagnostics write: text, `\r`, `\n`, `\t`, and the CSI
/// sequences for moving up or down, to a column, and erasing; another
/// sequence fails the test, so that nothing is read past unnoticed.
struct Screen {
    lines: Vec<Vec<char>>,
    row: usize,
    column: usize,
}

impl Screen {
    fn play(bytes: &[u8]) -> Vec<String> {
        let mut screen = Screen {
            lines: vec![Vec::new()],
            row: 0,
            column: 0,
        };
        let text = String::from_utf8_lossy(bytes);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => screen.column = 0,
                '\n' => {
                    screen.row += 1;
                    screen.column = 0;
                }
                '\t' => screen.column = (screen.column / 8 + 1) * 8,
                '\u{1b}' => {
                    assert_eq!(chars.next(), Some('['), "not a CSI sequence in {text:?}");
                    let mut parameter = String::new();
                    let command = loop {
                        match chars.next() {
                            Some(c) if c.is_ascii_digit() || c == ';' || c == '?' => {
                                parameter.push(c)
                            }
                            Some(c) => break c,
                            None => panic!("a CSI sequence cut short in {text:?}"),
                        }
                    };
                    screen.csi(&parameter, command, &text);
                }
                c if c.is_control() => panic!("control character {c:?} in {text:?}"),
                c => screen.put(c),
            }
            while screen.lines.len() <= screen.row {
                screen.lines.push(Vec::new());
            }
        }
        let mut lines: Vec<String> = screen
            .lines
            .iter()
            .map(|l| l.iter().collect::<String>().trim_end().to_string())
            .collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    }

    fn put(&mut self, c: char) {
        let line = &mut self.lines[self.row];
        while line.len() < self.column {
            line.push(' ');
        }
        if self.column < line.len() {
            line[self.column] = c;
        } else {
            line.push(c);
        }
        self.column += 1;
    }

    fn csi(&mut self, parameter: &str, command: char, text: &str) {
        let n = parameter.parse::<usize>().unwrap_or(1).max(1);
        let line = &mut self.lines[self.row];
        match (parameter, command) {
            ("?25", 'l' | 'h') => {}
            (_, 'A') => self.row = self.row.saturating_sub(n),
            (_, 'B') => self.row += n,
            (_, 'G') => self.column = n - 1,
            ("" | "0", 'K') => line.truncate(self.column),
            ("2", 'K') => line.clear(),
            ("" | "0", 'J') => {
                line.truncate(self.column);
                self.lines.truncate(self.row + 1);
            }
            ("" | "0", 'm') => {}
            _ => panic!(
                "the CSI sequence {parameter:?}{command:?} is not known to the test: {text:?}"
            ),
        }
    }
}

#[test]
fn the_screen_plays_erasures_and_moves() {
    assert_eq!(
        Screen::play(b"\xe2\xa0\x8b loading (0s)\r\x1b[2Kerror: x\r\n"),
        ["error: x"]
    );
    assert_eq!(
        Screen::play(b"one\r\ntwo\r\n\x1b[1A\x1b[2Kthree"),
        ["one", "three"]
    );
    assert_eq!(Screen::play(b"spin\x1b[1G\x1b[Jok"), ["ok"]);
    assert_eq!(
        Screen::play(b"\xe2\xa0\x8b loading (0s)error: x"),
        ["\u{280b} loading (0s)error: x"],
        "a spinner line never erased stays"
    );
}

/// `script` runs `command` under a pseudo-terminal of 120 columns; what it
/// wrote there (stdout and stderr both), and its exit code.
fn in_terminal(command: &Command, spinner: bool) -> (Vec<u8>, Option<i32>) {
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', "'\\''"));
    let mut line = String::from("stty cols 120 rows 40; exec");
    line.push(' ');
    line.push_str(&quote(command.get_program()));
    for arg in command.get_args() {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    let mut script = Command::new("script");
    script.args(["-qfec", &line, "/dev/null"]);
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => script.env(key, value),
            None => script.env_remove(key),
        };
    }
    if spinner {
        script.env_remove("CI");
    } else {
        script.env("CI", "true");
    }
    let output = script
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("`script` (util-linux) is required for the terminal tests and cannot run: {e}; install Debian's bsdutils (apt-get install bsdutils)"));
    assert!(
        output.stderr.is_empty(),
        "script: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output.stdout, output.status.code())
}

/// The command line `args` makes run in a terminal with the spinner
/// (`args(true)`) and without: the spinner was drawn, and erased before
/// anything else, so both leave the same screen.
fn spinner_leaves_nothing(args: &dyn Fn(bool) -> Vec<String>, code: i32) -> Vec<String> {
    let command = |spinner: bool| {
        let mut command = garrison();
        command.args(args(spinner)).env_remove("GARRISON_STRICT");
        command
    };
    let (with, with_code) = in_terminal(&command(true), true);
    let (without, without_code) = in_terminal(&command(false), false);
    let shown = String::from_utf8_lossy(&with);
    assert_eq!(with_code, Some(code), "{shown}");
    assert_eq!(without_code, Some(code));
    assert!(
        shown.contains("loading the repository"),
        "the spinner was not drawn, so this run proves nothing: {shown:?}"
    );
    assert!(
        !String::from_utf8_lossy(&without).contains("loading the repository"),
        "a spinner with CI set"
    );
    let screen = Screen::play(&with);
    assert_eq!(screen, Screen::play(&without), "bytes written: {shown:?}");
    assert!(
        !screen.iter().any(|l| l.contains("loading the repository")
            || l.contains("planning")
            || l.contains("making every cluster")),
        "{screen:#?}"
    );
    screen
}

fn s(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn a_render_leaves_its_summary_and_no_spinner() {
    let dir = temp();
    let repo = testdata().join("fleet/repo");
    // Each run renders into a directory of its own, so both add the fleet.
    let args = |spinner: bool| {
        let out = dir.path().join(if spinner { "out" } else { "plain" });
        args(&["render", "--repo", &s(&repo), "--out", &s(&out)])
    };
    let screen = spinner_leaves_nothing(&args, 0);
    assert!(
        screen
            .iter()
            .any(|l| l.starts_with("rendered: 12 clusters")),
        "{screen:#?}"
    );
}

#[test]
fn refusals_leave_their_errors_and_no_spinner() {
    let dir = temp();
    let bad = testdata().join("bad-input");
    // While loading, while planning, while making the objects.
    for case in [
        "G0101-bad-indentation",
        "G0401-fort-pin-not-candidate",
        "G0301-override-path-missing",
    ] {
        let repo = bad.join(case).join("repo");
        let out = dir.path().join(case);
        let line = args(&["render", "--repo", &s(&repo), "--out", &s(&out)]);
        let screen = spinner_leaves_nothing(&|_| line.clone(), 2);
        assert!(
            screen.iter().any(|l| l.starts_with("error[")),
            "{case}: {screen:#?}"
        );
        assert!(!out.exists(), "{case}: written");
    }
}

/// After the plan is made: the guard against removing most of the
/// previous render refuses.
#[test]
fn a_refused_mass_prune_leaves_its_error_and_no_spinner() {
    let dir = temp();
    let repo = dir.path().join("repo");
    copy_dir(&testdata().join("fleet/repo"), &repo);
    let out = dir.path().join("out");
    let first = crate::support::render_to(&repo, &out, &["-q"]);
    assert!(first.status.success());
    std::fs::remove_dir_all(repo.join("apps")).unwrap_or_else(|e| panic!("{e}"));
    let line = args(&["render", "--repo", &s(&repo), "--out", &s(&out)]);
    let screen = spinner_leaves_nothing(&|_| line.clone(), 2);
    assert!(screen.iter().any(|l| l.contains("G0603")), "{screen:#?}");
}
