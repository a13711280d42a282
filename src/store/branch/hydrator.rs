//! `hydrator.metadata`: the file Argo CD's Source Hydrator writes at the
//! root of every commit it hydrates, written by garrison at the root of
//! every render it commits, so that the tools reading it (GitOps Promoter,
//! Argo CD's commit-message and README templates) read a garrison branch
//! as they read a hydrated one.
//!
//! The fields mean what they mean there, of the source ("dry") commit the
//! render was made from:
//!
//! - `repoURL`: the source repository's URL, here the remote `origin`'s
//!   (without credentials); left out when there is none;
//! - `drySha`: the full SHA of the source commit;
//! - `author`: its author, `Name <email>`;
//! - `date`: its author date in RFC 3339, in UTC;
//! - `subject`: its message up to the first blank line, `body`: the rest
//!   (the message trimmed of surrounding white space first), with every
//!   line that is a valid `Argocd-reference-commit-*` trailer taken out;
//! - `references`: the commit those trailers of the message's trailer
//!   block describe, as `[{"commit": {author, date, subject, body, sha,
//!   repoUrl}}]` (one reference; the last value of a repeated trailer
//!   wins; a value that does not validate is ignored and its line stays
//!   in `body`).
//!
//! Empty fields are left out, as Argo CD's encoder leaves them out. No
//! clock is read: the same source commit gives the same bytes.

use super::SourceCommit;
use serde::Serialize;

/// The file's name, at the root of the commit's tree.
pub const FILE: &str = crate::model::layout::HYDRATOR_METADATA;

/// The trailer prefix a reference is written with.
const PREFIX: &str = "Argocd-reference-commit-";

#[derive(Serialize)]
struct Metadata<'a> {
    #[serde(rename = "repoURL", skip_serializing_if = "Option::is_none")]
    repo_url: Option<&'a str>,
    #[serde(rename = "drySha")]
    dry_sha: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    author: &'a str,
    #[serde(skip_serializing_if = "String::is_empty")]
    date: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    subject: &'a str,
    #[serde(skip_serializing_if = "String::is_empty")]
    body: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    references: Vec<Reference>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub commit: Commit,
}

/// A commit a source commit refers to, from its trailers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Commit {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub author: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub date: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub subject: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub body: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub sha: String,
    #[serde(rename = "repoUrl", skip_serializing_if = "String::is_empty")]
    pub repo_url: String,
}

/// The bytes of `hydrator.metadata` for a render of `source`: JSON
/// indented by two spaces, ending in a newline.
pub fn metadata(source: &SourceCommit) -> Vec<u8> {
    let message = source.message.trim();
    let (subject, body) = message.split_once("\n\n").unwrap_or((message, ""));
    let value = Metadata {
        repo_url: source.origin_url.as_deref(),
        dry_sha: &source.commit,
        author: &source.author,
        date: utc_rfc3339(source.authored),
        subject,
        body: without_references(body),
        references: references(&source.trailers),
    };
    let mut bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The reference the `Argocd-reference-commit-*` trailers describe.
pub fn references(trailers: &[(String, String)]) -> Vec<Reference> {
    let mut commit = Commit::default();
    for (key, value) in trailers {
        apply(&mut commit, &format!("{key}: {value}"));
    }
    if commit == Commit::default() {
        Vec::new()
    } else {
        vec![Reference { commit }]
    }
}

/// `body` without the lines that are valid reference trailers, every
/// line kept ending in a newline.
pub fn without_references(body: &str) -> String {
    let mut scratch = Commit::default();
    let mut out = String::new();
    for line in body.lines() {
        if !apply(&mut scratch, line) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Read one `Argocd-reference-commit-<field>: <value>` line into
/// `commit`; `false` (and `commit` unchanged) when the line is no such
/// trailer or its value does not validate.
fn apply(commit: &mut Commit, line: &str) -> bool {
    if !line.starts_with(PREFIX) {
        return false;
    }
    let Some((key, value)) = line.split_once(": ") else {
        return false;
    };
    match &key[PREFIX.len()..] {
        "repourl" if valid_url(value) => commit.repo_url = value.to_string(),
        "author" => match address(value) {
            Some(author) => commit.author = author,
            None => return false,
        },
        "date" => match rfc3339(value) {
            Some(date) => commit.date = date,
            None => return false,
        },
        "subject" => commit.subject = value.to_string(),
        "body" => match serde_json::from_str::<String>(value) {
            Ok(body) => commit.body = body,
            Err(_) => return false,
        },
        "sha" if is_short_sha(value) => commit.sha = value.to_string(),
        _ => return false,
    }
    true
}

/// 5 to 40 lower-case hexadecimal digits.
fn is_short_sha(value: &str) -> bool {
    (5..=40).contains(&value.len())
        && value
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether a URL parses, by the rules Go's `url.Parse` applies that a
/// trailer's value can break: no control character, `%` only as an escape
/// of two hexadecimal digits (outside the query), a scheme (when a `:`
/// comes before any `/`) of a letter then letters, digits, `+`, `-`, `.`,
/// and a numeric port.
fn valid_url(value: &str) -> bool {
    if value.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return false;
    }
    let (without_fragment, fragment) = value.split_once('#').unwrap_or((value, ""));
    let (before_query, _) = without_fragment
        .split_once('?')
        .unwrap_or((without_fragment, ""));
    if !escapes_are_valid(before_query) || !escapes_are_valid(fragment) {
        return false;
    }
    let rest = match before_query.find(':') {
        Some(0) => return false,
        Some(colon) if !before_query[..colon].contains('/') => {
            let scheme = &before_query[..colon];
            let mut chars = scheme.chars();
            let scheme_like = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
            if !scheme_like {
                // No scheme: a first path segment with a colon is refused.
                return false;
            }
            &before_query[colon + 1..]
        }
        _ => return true,
    };
    let Some(authority_and_path) = rest.strip_prefix("//") else {
        return true;
    };
    let authority = authority_and_path
        .split('/')
        .next()
        .unwrap_or(authority_and_path);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let port = match host.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((_, after)) => match after {
                "" => None,
                after => match after.strip_prefix(':') {
                    Some(port) => Some(port),
                    None => return false,
                },
            },
            None => return false,
        },
        None => host.split_once(':').map(|(_, port)| port),
    };
    port.is_none_or(|port| port.bytes().all(|b| b.is_ascii_digit()))
}

fn escapes_are_valid(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(i + 1) && hex(i + 2)) {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

/// An RFC 5322 address (`Name <local@domain>`, `"Name" <local@domain>`,
/// `<local@domain>` or `local@domain`) written as Go's `mail.Address`
/// writes it: the name, when there is one, quoted, then `<local@domain>`.
/// (Go also encodes a name that is not ASCII as a MIME word; it is kept as
/// UTF-8 here, which RFC 6532 allows.)
fn address(value: &str) -> Option<String> {
    let value = value.trim();
    let (name, addr) = match value.strip_suffix('>') {
        Some(head) => {
            let (name, addr) = head.rsplit_once('<')?;
            (display_name(name.trim())?, addr)
        }
        None => (String::new(), value),
    };
    let (local, domain) = addr.rsplit_once('@')?;
    if !dot_atom(local) || !dot_atom(domain) {
        return None;
    }
    let addr = format!("<{local}@{domain}>");
    if name.is_empty() {
        return Some(addr);
    }
    let quoted = name.replace('\\', "\\\\").replace('"', "\\\"");
    Some(format!("\"{quoted}\" {addr}"))
}

/// A display name: one quoted string, or words of atom characters (and
/// `.`) separated by white space, joined by one space.
fn display_name(name: &str) -> Option<String> {
    if let Some(inner) = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(chars.next()?),
                '"' => return None,
                c => out.push(c),
            }
        }
        return Some(out);
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    let atoms = words
        .iter()
        .all(|w| w.chars().all(|c| atom_char(c) || c == '.'));
    atoms.then(|| words.join(" "))
}

fn atom_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii()
}

fn dot_atom(text: &str) -> bool {
    !text.is_empty()
        && text
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(atom_char))
}

/// An RFC 3339 time written as Go writes a parsed one with that layout:
/// the same local time and offset, fractional seconds dropped, `Z` for a
/// zero offset.
fn rfc3339(value: &str) -> Option<String> {
    let b = value.as_bytes();
    let digits = |from: usize, len: usize| -> Option<u32> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let fixed = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if fixed.iter().any(|(at, c)| b.get(*at) != Some(c)) {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 2)?, digits(8, 2)?);
    let (hour, minute, second) = (digits(11, 2)?, digits(14, 2)?, digits(17, 2)?);
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut at = 19;
    if b.get(at) == Some(&b'.') {
        let fraction = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if fraction == 0 {
            return None;
        }
        at += 1 + fraction;
    }
    let zone = match &b[at..] {
        b"Z" => "Z".to_string(),
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (h, m) = (digits(at + 1, 2)?, digits(at + 4, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            if h == 0 && m == 0 {
                "Z".to_string()
            } else {
                format!("{}{h:02}:{m:02}", char::from(*sign))
            }
        }
        _ => return None,
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{zone}"
    ))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Seconds since the epoch as an RFC 3339 time in UTC.
pub fn utc_rfc3339(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    // Days to a civil date (proleptic Gregorian), after Howard Hinnant.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(message: &str, trailers: &[(&str, &str)]) -> SourceCommit {
        SourceCommit {
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            subject: message.lines().next().unwrap_or("").into(),
            author: "Ada Lovelace <ada@example.com>".into(),
            time: 1_700_000_100,
            authored: 1_700_000_000,
            message: message.into(),
            trailers: trailers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            origin_url: Some("https://git.example.com/fleet.git".into()),
            dirty: false,
            changed: Vec::new(),
            untracked: Vec::new(),
        }
    }

    fn json(bytes: &[u8]) -> serde_json::Value {
        serde_json::from_slice(bytes).expect("JSON")
    }

    #[test]
    fn the_fields_of_a_plain_commit() {
        let bytes = metadata(&source(
            "Scale web to 5\n\nMore replicas for the sale.\n",
            &[],
        ));
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            r#"{
  "repoURL": "https://git.example.com/fleet.git",
  "drySha": "0123456789abcdef0123456789abcdef01234567",
  "author": "Ada Lovelace <ada@example.com>",
  "date": "2023-11-14T22:13:20Z",
  "subject": "Scale web to 5",
  "body": "More replicas for the sale.\n"
}
"#
        );
    }

    #[test]
    fn empty_fields_are_left_out() {
        let mut plain = source("Only a subject\n", &[]);
        plain.origin_url = None;
        let value = json(&metadata(&plain));
        let keys: Vec<&str> = value
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["drySha", "author", "date", "subject"]);
    }

    #[test]
    fn reference_trailers_become_a_reference_and_leave_the_body() {
        let message = "Bump the image\n\nFrom the app repository.\n\n\
            Signed-off-by: Bob <bob@example.com>\n\
            Argocd-reference-commit-sha: 89abcdef\n\
            Argocd-reference-commit-author: Carol Code <carol@example.com>\n\
            Argocd-reference-commit-date: 2024-02-29T10:11:12.5+01:00\n\
            Argocd-reference-commit-subject: Fix the cart\n\
            Argocd-reference-commit-body: \"Fix the cart\\n\\nIt lost items.\"\n\
            Argocd-reference-commit-repourl: https://git.example.com/shop.git\n";
        let trailers = [
            ("Signed-off-by", "Bob <bob@example.com>"),
            ("Argocd-reference-commit-sha", "89abcdef"),
            (
                "Argocd-reference-commit-author",
                "Carol Code <carol@example.com>",
            ),
            (
                "Argocd-reference-commit-date",
                "2024-02-29T10:11:12.5+01:00",
            ),
            ("Argocd-reference-commit-subject", "Fix the cart"),
            (
                "Argocd-reference-commit-body",
                "\"Fix the cart\\n\\nIt lost items.\"",
            ),
            (
                "Argocd-reference-commit-repourl",
                "https://git.example.com/shop.git",
            ),
        ];
        let value = json(&metadata(&source(message, &trailers)));
        assert_eq!(value["subject"], "Bump the image");
        assert_eq!(
            value["body"],
            "From the app repository.\n\nSigned-off-by: Bob <bob@example.com>\n"
        );
        assert_eq!(
            value["references"],
            serde_json::json!([{"commit": {
                "author": "\"Carol Code\" <carol@example.com>",
                "date": "2024-02-29T10:11:12+01:00",
                "subject": "Fix the cart",
                "body": "Fix the cart\n\nIt lost items.",
                "sha": "89abcdef",
                "repoUrl": "https://git.example.com/shop.git",
            }}])
        );
    }

    #[test]
    fn invalid_reference_values_are_ignored_and_stay_in_the_body() {
        let lines = [
            "Argocd-reference-commit-repourl: % invalid %",
            "Argocd-reference-commit-date: yesterday",
            "Argocd-reference-commit-sha: XYZ123",
            "Argocd-reference-commit-body: not json",
            "Argocd-reference-commit-author: not an address",
            "Argocd-reference-commit-unknown: x",
            "Argocd-reference-commit-subject:no space",
        ];
        let body = lines.join("\n");
        assert_eq!(without_references(&body), format!("{body}\n"));
        let trailers: Vec<(String, String)> = lines
            .iter()
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.to_string(), v.trim().to_string()))
            .filter(|(k, _)| !k.ends_with("subject"))
            .collect();
        assert_eq!(references(&trailers), []);
        // Valid and invalid mixed: the valid one is read, the rest stays.
        let mixed = "Argocd-reference-commit-sha: abc12\nArgocd-reference-commit-date: never";
        assert_eq!(
            without_references(mixed),
            "Argocd-reference-commit-date: never\n"
        );
        // The last of repeated trailers wins.
        let repeated = [
            (
                format!("{PREFIX}repourl"),
                "https://a.example.com/x".to_string(),
            ),
            (
                format!("{PREFIX}repourl"),
                "https://b.example.com/y".to_string(),
            ),
        ];
        assert_eq!(
            references(&repeated)[0].commit.repo_url,
            "https://b.example.com/y"
        );
    }

    #[test]
    fn urls_are_checked_as_go_parses_them() {
        for good in [
            "https://github.com/org/repo.git",
            "ssh://git@host:22/org/repo",
            "https://[::1]:8080/x",
            "relative/path",
            "/abs/path",
            "https://host/a%20b?q=%zz",
        ] {
            assert!(valid_url(good), "{good}");
        }
        for bad in [
            "% invalid %",
            "git@github.com:org/repo",
            ":no-scheme",
            "https://host:port/x",
            "https://host/\u{7}",
            "https://[::1/x",
        ] {
            assert!(!valid_url(bad), "{bad}");
        }
    }

    #[test]
    fn addresses_are_written_as_go_writes_them() {
        let cases = [
            (
                "John Doe <john.doe@example.com>",
                Some("\"John Doe\" <john.doe@example.com>"),
            ),
            (
                "\"Doe, John\" <j@example.com>",
                Some("\"Doe, John\" <j@example.com>"),
            ),
            ("<j@example.com>", Some("<j@example.com>")),
            ("j@example.com", Some("<j@example.com>")),
            (
                "Ann  O'Neil <ann@example.com>",
                Some("\"Ann O'Neil\" <ann@example.com>"),
            ),
            ("not an address", None),
            ("Name <nobody>", None),
            ("Doe, John <j@example.com>", None),
        ];
        for (given, expected) in cases {
            assert_eq!(address(given).as_deref(), expected, "{given}");
        }
    }

    #[test]
    fn dates_are_normalised_as_go_formats_them() {
        let cases = [
            ("2024-01-02T03:04:05Z", Some("2024-01-02T03:04:05Z")),
            (
                "2024-01-02T03:04:05.123456-07:00",
                Some("2024-01-02T03:04:05-07:00"),
            ),
            ("2024-01-02T03:04:05+00:00", Some("2024-01-02T03:04:05Z")),
            ("2023-02-29T00:00:00Z", None),
            ("2024-01-02 03:04:05Z", None),
            ("2024-01-02T03:04:05", None),
            ("2024-01-02T24:00:00Z", None),
        ];
        for (given, expected) in cases {
            assert_eq!(rfc3339(given).as_deref(), expected, "{given}");
        }
    }

    #[test]
    fn epoch_seconds_become_utc_dates() {
        assert_eq!(utc_rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_rfc3339(1_709_208_000), "2024-02-29T12:00:00Z");
        assert_eq!(utc_rfc3339(-1), "1969-12-31T23:59:59Z");
        assert_eq!(utc_rfc3339(4_102_444_800), "2100-01-01T00:00:00Z");
    }

    #[test]
    fn a_message_without_a_blank_line_is_all_subject() {
        let value = json(&metadata(&source("  One line only  \n\n\n", &[])));
        assert_eq!(value["subject"], "One line only");
        assert!(value.get("body").is_none());
    }
}
