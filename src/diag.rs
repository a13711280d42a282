//! Diagnostics: what garrison tells a user about their input, and where.
//!
//! A [`Diagnostic`] is a value: a stable [`Code`], a severity, a one-line
//! message, the [`Origin`] it points at and an optional hint. Positions are kept
//! as (file, line, column) and turned into a source snippet only when rendered,
//! from the texts held in [`Sources`]. Every fault in a run is collected before
//! anything is written; one error means nothing is rendered.

use crate::node::Pos;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::fmt::Write as _;

/// Index of a file in [`Sources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A place in the user's repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    pub file: FileId,
    pub pos: Pos,
}

/// Every text read in this run, by [`FileId`]; paths are relative to the repository, with `/`.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<(String, String)>,
}

impl Sources {
    pub fn add(&mut self, path: String, text: String) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push((path, text));
        id
    }
    /// The id the next added file will get.
    pub fn next_id(&self) -> FileId {
        FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX))
    }
    pub fn path(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map_or("<unknown>", |(path, _)| path.as_str())
    }
    pub fn text(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map_or("", |(_, text)| text.as_str())
    }
    /// `path:line:column` for messages.
    pub fn locate(&self, origin: &Origin) -> String {
        format!(
            "{}:{}:{}",
            self.path(origin.file),
            origin.pos.line,
            origin.pos.column
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = ($code:literal, $name:literal), )*) => {
        /// Every fault garrison reports, with a stable code. `docs/reference.md` lists them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $( $(#[$doc])* $variant, )* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];
            /// The stable code, such as `G0101`.
            pub fn code(self) -> &'static str { match self { $(Code::$variant => $code,)* } }
            /// The kebab-case name of the fault, such as `yaml-syntax`.
            pub fn name(self) -> &'static str { match self { $(Code::$variant => $name,)* } }
        }
    };
}

codes! {
    /// A file could not be read.
    Io = ("G0001", "unreadable-file"),
    /// A file is not valid UTF-8.
    NotUtf8 = ("G0002", "not-utf8"),
    /// A symbolic link points outside the repository.
    SymlinkOutside = ("G0003", "symlink-outside-repo"),
    /// A file is larger than the configured limit.
    FileTooLarge = ("G0004", "file-too-large"),
    /// `garrison.yaml` is not valid.
    InvalidConfig = ("G0005", "invalid-config"),
    /// The repository holds no input file (an empty or mistyped `--repo`).
    EmptyRepository = ("G0006", "empty-repository"),
    /// The repository defines no Cluster or ManagedCluster: nothing could be rendered.
    NoClusters = ("G0007", "no-clusters"),
    /// A dry source (kustomize base, Helm chart) could not be rendered: its
    /// tool is missing or failed.
    DrySourceFailed = ("G0008", "dry-source-failed"),
    /// A dry source needs what is not in the repository: a remote base, a
    /// chart dependency not vendored, a missing directory or values file.
    DrySourceOutside = ("G0009", "dry-source-outside"),
    /// A Helm chart in the repository that no `sources` entry names: its
    /// templates cannot be read as they are.
    UnnamedChart = ("G0010", "unnamed-chart"),
    /// YAML or JSON that does not parse, or exceeds a parse limit.
    Syntax = ("G0101", "yaml-syntax"),
    /// A document that is not a mapping.
    NotAnObject = ("G0102", "not-an-object"),
    /// A document without `apiVersion` or `kind`.
    MissingTypeMeta = ("G0103", "missing-type-meta"),
    /// A field with the wrong type or an unknown enum value.
    InvalidField = ("G0104", "invalid-field"),
    /// A field garrison does not support yet; it has no effect.
    UnsupportedField = ("G0105", "unsupported-field"),
    /// A name or namespace that is not a valid Kubernetes name.
    InvalidName = ("G0106", "invalid-name"),
    /// The same object defined twice.
    DuplicateObject = ("G0107", "duplicate-object"),
    /// An unknown kind in a Karmada API group garrison interprets.
    UnknownKind = ("G0108", "unknown-policy-kind"),
    /// A field the kind's schema does not have (kubectl's strict field validation).
    UnknownField = ("G0109", "unknown-field"),
    /// A namespaced object without `metadata.namespace`, and no `defaultNamespace`.
    MissingNamespace = ("G0110", "missing-namespace"),
    /// A kind whose schema garrison does not know: rendered as is, unchecked.
    NoSchema = ("G0111", "no-schema"),
    /// A kind or version the API server would not serve: not in Kubernetes'
    /// built-in API, or not in the CustomResourceDefinition of its group.
    UnknownApiKind = ("G0112", "unknown-kind"),
    /// A CustomResourceDefinition in the repository whose schema cannot be used.
    InvalidCrd = ("G0113", "invalid-crd"),
    /// A `garrison.dev/` label, annotation or selector key garrison does
    /// not have, on a document that does not read it, or with a value it
    /// does not take.
    UnknownGarrisonKey = ("G0114", "unknown-garrison-key"),
    /// A policy whose selectors match no template.
    PolicyMatchesNothing = ("G0201", "policy-matches-nothing"),
    /// A cluster named in a policy or binding that the fleet does not define.
    UnknownCluster = ("G0202", "unknown-cluster"),
    /// No cluster can take the application.
    Unschedulable = ("G0203", "unschedulable"),
    /// A placement Karmada's webhook would refuse.
    InvalidPlacement = ("G0204", "invalid-placement"),
    /// Two clusters with the same name.
    DuplicateCluster = ("G0205", "duplicate-cluster"),
    /// `dependentOverrides` names an override policy that does not exist.
    MissingDependentOverride = ("G0206", "missing-dependent-override"),
    /// A binding for a template that is not in the source.
    BindingWithoutTemplate = ("G0207", "binding-without-template"),
    /// A field that is accepted and carried but has no effect offline.
    IgnoredField = ("G0208", "ignored-field"),
    /// A template in a namespace Karmada never propagates (`kube-*`,
    /// `karmada-system`, …) or marked as claimed by Karmada: not rendered.
    ReservedNamespace = ("G0209", "reserved-namespace"),
    /// A template both dialects claim, or one a cluster would receive from
    /// two Subscriptions (Clusternet would apply it twice and the two fight).
    ClaimedTwice = ("G0210", "claimed-twice"),
    /// A Subscription's feed names no template of the repository, or more
    /// than one.
    FeedWithoutTemplate = ("G0211", "feed-without-template"),
    /// A `propagateDeps` workload whose built-in dependencies Karmada
    /// refuses, so that none of them follows it.
    DependenciesRefused = ("G0212", "dependencies-refused"),
    /// An override that cannot be applied.
    OverrideFailed = ("G0301", "override-failed"),
    /// An override policy Karmada's webhook would refuse.
    InvalidOverride = ("G0302", "invalid-override-policy"),
    /// A Clusternet JSONPatch override names a path the object lacks:
    /// Clusternet drops the whole patch, and so does garrison.
    PatchDropped = ("G0303", "patch-dropped"),
    /// A fort pin names a cluster that is not a candidate.
    FortPinNotCandidate = ("G0401", "fort-pin-not-candidate"),
    /// Two objects would be written to the same file.
    PathCollision = ("G0601", "output-path-collision"),
    /// An object could not be serialised.
    Emit = ("G0602", "emit-failed"),
    /// The render would remove every object of the previous render, or more
    /// than the share `massPrune` allows.
    MassPrune = ("G0603", "mass-prune"),
    /// An application the previous render delivered, its template and
    /// policy still in the repository, would reach no cluster.
    ApplicationVanishes = ("G0604", "application-vanishes"),
    /// `--format` changes while a hold keeps an application's files on a
    /// cluster whose directory is rendered again.
    HeldFormatChange = ("G0605", "held-format-change"),
    /// A ResourceInterpreterCustomization script does not compile, fails at
    /// its top level, or does not define its function.
    LuaLoadFailed = ("G0701", "lua-load-failed"),
    /// A customization function raised an error or returned the wrong type.
    LuaCallFailed = ("G0702", "lua-call-failed"),
    /// A customization script hit the memory, instruction or time limit.
    LuaLimitExceeded = ("G0703", "lua-limit-exceeded"),
    /// Karmada interprets the kind with a customization built into it that
    /// the repository does not declare, and the render depends on it.
    MissingInterpreter = ("G0704", "missing-interpreter"),
    /// A policy divides a template's `spec.replicas` that no interpreter
    /// reads: every cluster gets all of them, in Karmada too.
    ReplicasNotDivided = ("G0705", "replicas-not-divided"),
    /// Two ResourceInterpreterCustomizations of one kind write the same
    /// rule (other than `dependencyInterpretation`).
    CustomizationConflict = ("G0706", "customization-conflict"),
    /// An object of a control plane export that `garrison import` cannot
    /// turn into input that renders what Karmada delivers.
    CannotImport = ("G0801", "cannot-import"),
    /// A document of `garrison verify --works` that is not a Work of a
    /// member cluster's execution namespace.
    NotAWork = ("G0802", "not-a-work"),
}

/// One finding about the user's input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub origin: Option<Origin>,
    pub help: Option<String>,
    /// Turned from an error into a warning by a `relax` rule of
    /// garrison.yaml: `--strict` leaves it a warning.
    pub relaxed: bool,
}

impl Diagnostic {
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            origin: None,
            help: None,
            relaxed: false,
        }
    }
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            code,
            message: message.into(),
            origin: None,
            help: None,
            relaxed: false,
        }
    }
    pub fn at(mut self, origin: Origin) -> Self {
        self.origin = Some(origin);
        self
    }
    pub fn at_opt(mut self, origin: Option<Origin>) -> Self {
        self.origin = origin;
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// All findings of a run, in a stable order (by file, line, then code).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    pub fn errors(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }
    pub fn warnings(&self) -> usize {
        self.0.len() - self.errors()
    }
    /// What `--strict` makes of these findings: every warning becomes an
    /// error, except those a `relax` rule of garrison.yaml turned into
    /// warnings on purpose. The help says why it is an error now.
    pub fn strict(mut self) -> Diagnostics {
        for diagnostic in &mut self.0 {
            if diagnostic.severity == Severity::Warning && !diagnostic.relaxed {
                diagnostic.severity = Severity::Error;
                let why = "a warning, refused because of `--strict`";
                diagnostic.help = Some(match diagnostic.help.take() {
                    Some(help) => format!("{help}; {why}"),
                    None => why.to_string(),
                });
            }
        }
        self
    }
    /// Sort for output and drop exact repeats.
    pub fn sorted(mut self) -> Diagnostics {
        self.0.sort_by(|a, b| {
            (a.origin, a.severity, a.code, &a.message)
                .cmp(&(b.origin, b.severity, b.code, &b.message))
        });
        self.0.dedup();
        self
    }
}

/// The candidate a misspelt `word` most likely meant: the closest by edit
/// distance (ignoring case), within a third of the word's length (at least
/// one edit). For "did you mean" hints.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= limit && *c != word)
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

/// Edit distance by characters, a swap of two neighbours counting as one
/// edit (optimal string alignment): `fats` is one edit from `fast`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d: Vec<usize> = vec![0; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

impl Diagnostic {
    /// The diagnostic as JSON (`--json`): `code`, `name`, `severity`,
    /// `message`, the `file` (from the repository), `line` and `column` it
    /// points at (`null` when it points at no file), and the `help`
    /// (`null` when there is none).
    pub fn to_json(&self, sources: &Sources) -> serde_json::Value {
        let origin = self.origin.as_ref();
        serde_json::json!({
            "code": self.code.code(),
            "name": self.code.name(),
            "severity": level_word(self.severity),
            "message": self.message,
            "file": origin.map(|o| sources.path(o.file)),
            "line": origin.map(|o| o.pos.line),
            "column": origin.map(|o| o.pos.column),
            "help": self.help,
        })
    }
}

/// How diagnostics are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Source snippet with a caret, ANSI colours.
    Color,
    /// Source snippet with a caret, no colours.
    Plain,
    /// One line per diagnostic.
    Concise,
    /// GitHub Actions workflow commands (`::error file=…`).
    Github,
}

/// Render every diagnostic in `style`, each followed by a newline.
pub fn render(diagnostics: &Diagnostics, sources: &Sources, style: Style) -> String {
    render_under(diagnostics, sources, style, "")
}

/// [`render`], with the files of GitHub annotations under `prefix` (a
/// path with `/`, `""` for none): GitHub places an annotation by its path
/// from the root of the checkout, and the repository may be a folder of it.
pub fn render_under(
    diagnostics: &Diagnostics,
    sources: &Sources,
    style: Style,
    prefix: &str,
) -> String {
    let mut out = String::new();
    for diagnostic in &diagnostics.0 {
        match style {
            Style::Color | Style::Plain => {
                out.push_str(&render_snippet(diagnostic, sources, style == Style::Color));
                out.push_str("\n\n");
            }
            Style::Concise => {
                let _ = writeln!(out, "{}", render_concise(diagnostic, sources));
            }
            Style::Github => {
                let _ = writeln!(out, "{}", render_github(diagnostic, sources, prefix));
            }
        }
    }
    out
}

fn level_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn render_concise(d: &Diagnostic, sources: &Sources) -> String {
    let place = d
        .origin
        .map(|o| format!("{}: ", sources.locate(&o)))
        .unwrap_or_default();
    // A message that lists things (one per line) stays on one line.
    let mut lines = d.message.lines();
    let mut message = lines.next().unwrap_or_default().to_string();
    let listed: Vec<&str> = lines.map(str::trim).collect();
    if !listed.is_empty() {
        message = format!("{message} {}", listed.join(", "));
    }
    let help = d
        .help
        .as_deref()
        .map(|h| format!(" (help: {h})"))
        .unwrap_or_default();
    format!(
        "{place}{}[{}]: {message}{help}",
        level_word(d.severity),
        d.code.code(),
    )
}

/// GitHub's workflow commands: properties and message escaped as the
/// runner expects; files under `prefix`.
fn render_github(d: &Diagnostic, sources: &Sources, prefix: &str) -> String {
    fn escape_data(s: &str) -> String {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    }
    fn escape_property(s: &str) -> String {
        escape_data(s).replace(':', "%3A").replace(',', "%2C")
    }
    let mut properties = vec![format!(
        "title={}",
        escape_property(&format!("{} {}", d.code.code(), d.code.name()))
    )];
    if let Some(origin) = d.origin {
        let path = sources.path(origin.file);
        let path = match prefix.trim_end_matches('/') {
            "" => path.to_string(),
            prefix => format!("{prefix}/{path}"),
        };
        properties.insert(0, format!("file={}", escape_property(&path)));
        properties.insert(1, format!("line={}", origin.pos.line));
        properties.insert(2, format!("col={}", origin.pos.column));
    }
    let help = d
        .help
        .as_deref()
        .map(|h| format!(" (help: {h})"))
        .unwrap_or_default();
    format!(
        "::{} {}::{}",
        level_word(d.severity),
        properties.join(","),
        escape_data(&format!("{}{help}", d.message))
    )
}

fn render_snippet(d: &Diagnostic, sources: &Sources, color: bool) -> String {
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let title = level.primary_title(d.message.as_str()).id(d.code.code());
    let mut group: Group<'_> = Group::with_title(title);
    if let Some(origin) = d.origin.filter(|o| sources.text(o.file).is_empty()) {
        // A fault about a file that has no text to show (a link, a file too large to read).
        group = group.element(
            annotate_snippets::Origin::path(sources.path(origin.file))
                .line(origin.pos.line as usize)
                .char_column(origin.pos.column as usize),
        );
    } else if let Some(origin) = d.origin {
        let text = sources.text(origin.file);
        let span = token_span(text, origin.pos);
        group = group.element(
            Snippet::source(text)
                .path(sources.path(origin.file))
                .fold(true)
                .annotation(AnnotationKind::Primary.span(span)),
        );
    }
    let mut report = Vec::new();
    match (&d.help, d.origin) {
        // Without a snippet, a second group would print a stray `|` line.
        (Some(help), None) => report.push(group.element(Level::HELP.message(help.as_str()))),
        (Some(help), Some(_)) => {
            report.push(group);
            report.push(Group::with_title(
                Level::HELP.secondary_title(help.as_str()),
            ));
        }
        (None, _) => report.push(group),
    }
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    renderer.render(&report)
}

/// The byte range of the token at `pos`: from its column to the end of the
/// word (or of the line for quoted text), at least one character.
fn token_span(text: &str, pos: Pos) -> std::ops::Range<usize> {
    let mut offset = 0usize;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if index + 1 == pos.line as usize {
            let content = line.trim_end_matches(['\n', '\r']);
            let column_bytes: usize = content
                .chars()
                .take((pos.column as usize).saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            let rest = &content[column_bytes.min(content.len())..];
            let len = if rest.starts_with(['"', '\'', '[', '{']) {
                rest.trim_end().len()
            } else {
                rest.find([' ', '\t', ',', ']', '}']).unwrap_or(rest.len())
            };
            let start = offset + column_bytes.min(content.len());
            return start..start + len.max(usize::from(!content.is_empty()));
        }
        offset += line.len();
    }
    let end = text.len();
    end..end
}

/// An unknown field, with the closest declared field as a suggestion.
pub fn unknown_field(kind: &str, path: &[String], field: &str, known: &[&str]) -> Diagnostic {
    let place = if path.is_empty() {
        String::new()
    } else {
        format!(" in `{}`", crate::node::display_path(path))
    };
    let help = match closest(field, known.iter().copied()) {
        Some(near) => format!("did you mean `{near}`?"),
        None => {
            let mut fields = known.to_vec();
            fields.sort_unstable();
            if fields.is_empty() {
                "remove it: nothing may be written here".to_string()
            } else if fields.len() <= 12 {
                format!(
                    "remove it, or use one of {}",
                    fields
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                "remove it, or check the spelling against the API reference".to_string()
            }
        }
    };
    Diagnostic::error(
        Code::UnknownField,
        format!("unknown field `{field}`{place} of {kind}"),
    )
    .help(help)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Sources, Diagnostics) {
        let mut sources = Sources::default();
        let file = sources.add(
            "policies/pp.yaml".into(),
            "kind: PropagationPolicy\nspec:\n  placement:\n    replicaScheduling:\n      replicaSchedulingType: Dvided\n".into(),
        );
        let diagnostic = Diagnostic::error(
            Code::InvalidField,
            "unknown variant `Dvided`, expected `Duplicated` or `Divided`",
        )
        .at(Origin {
            file,
            pos: Pos {
                line: 5,
                column: 30,
            },
        })
        .help("use `Duplicated` or `Divided`");
        (sources, Diagnostics(vec![diagnostic]))
    }

    #[test]
    fn plain_rendering_shows_the_line_and_a_caret() {
        let (sources, diagnostics) = sample();
        insta::assert_snapshot!(render(&diagnostics, &sources, Style::Plain));
    }

    #[test]
    fn concise_and_github_renderings() {
        let (sources, diagnostics) = sample();
        insta::assert_snapshot!(render(&diagnostics, &sources, Style::Concise), @"policies/pp.yaml:5:30: error[G0104]: unknown variant `Dvided`, expected `Duplicated` or `Divided` (help: use `Duplicated` or `Divided`)");
        insta::assert_snapshot!(render(&diagnostics, &sources, Style::Github), @"::error file=policies/pp.yaml,line=5,col=30,title=G0104 invalid-field::unknown variant `Dvided`, expected `Duplicated` or `Divided` (help: use `Duplicated` or `Divided`)");
        insta::assert_snapshot!(render_under(&diagnostics, &sources, Style::Github, "deploy/fleet"), @"::error file=deploy/fleet/policies/pp.yaml,line=5,col=30,title=G0104 invalid-field::unknown variant `Dvided`, expected `Duplicated` or `Divided` (help: use `Duplicated` or `Divided`)");
    }

    #[test]
    fn closest_finds_near_misses_only() {
        let fields = ["matchLabels", "matchExpressions"];
        assert_eq!(closest("matchLabel", fields), Some("matchLabels"));
        assert_eq!(closest("MatchLabels", fields), Some("matchLabels"));
        assert_eq!(closest("labels", fields), None);
        assert_eq!(
            closest("replica", ["replicas", "selector"]),
            Some("replicas")
        );
        assert_eq!(closest("x", ["y"]), Some("y"));
        assert_eq!(closest("ab", ["xy"]), None);
        assert_eq!(closest("fats", ["fast", "slow"]), Some("fast"));
    }

    #[test]
    fn a_listing_stays_on_one_line_when_concise() {
        let listing = Diagnostics(vec![Diagnostic::error(
            Code::MassPrune,
            "the render would remove 2 objects:\na: ConfigMap/web/one\nb: ConfigMap/web/two",
        )]);
        let sources = Sources::default();
        insta::assert_snapshot!(render(&listing, &sources, Style::Concise), @"error[G0603]: the render would remove 2 objects: a: ConfigMap/web/one, b: ConfigMap/web/two");
        insta::assert_snapshot!(render(&listing, &sources, Style::Github), @"::error title=G0603 mass-prune::the render would remove 2 objects:%0Aa: ConfigMap/web/one%0Ab: ConfigMap/web/two");
    }

    #[test]
    fn strict_makes_every_warning_an_error_except_relaxed_ones() {
        let warning = Diagnostic::warning(Code::PolicyMatchesNothing, "matches nothing")
            .help("check the selectors");
        let bare = Diagnostic::warning(Code::UnsupportedField, "unknown field");
        let relaxed = Diagnostic {
            relaxed: true,
            ..Diagnostic::warning(Code::UnknownField, "relaxed by garrison.yaml")
        };
        let error = Diagnostic::error(Code::InvalidName, "bad name").help("rename it");
        let diagnostics = Diagnostics(vec![
            warning.clone(),
            bare.clone(),
            relaxed.clone(),
            error.clone(),
        ]);
        assert_eq!(diagnostics.warnings(), 3);
        let strict = diagnostics.strict();
        assert_eq!((strict.errors(), strict.warnings()), (3, 1));
        assert_eq!(
            strict.0,
            vec![
                Diagnostic {
                    severity: Severity::Error,
                    help: Some(
                        "check the selectors; a warning, refused because of `--strict`".into()
                    ),
                    ..warning
                },
                Diagnostic {
                    severity: Severity::Error,
                    help: Some("a warning, refused because of `--strict`".into()),
                    ..bare
                },
                relaxed,
                error,
            ]
        );
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<&str> = Code::ALL.iter().map(|c| c.code()).collect();
        codes.sort_unstable();
        let before = codes.len();
        codes.dedup();
        assert_eq!(before, codes.len());
    }
}

#[cfg(test)]
mod color_tests {
    use super::*;

    #[test]
    fn terminal_rendering_colours_the_level_and_the_caret() {
        let mut sources = Sources::default();
        let file = sources.add("clusters.yaml".into(), "metadata:\n  name: y\n".into());
        let diagnostics = Diagnostics(vec![Diagnostic::error(
            Code::InvalidName,
            "`metadata.name` must be a string, but this reads as true",
        )
        .at(Origin {
            file,
            pos: Pos { line: 2, column: 9 },
        })
        .help("quote it")]);
        let text = render(&diagnostics, &sources, Style::Color);
        assert!(text.contains("\u{1b}["), "ANSI colour codes on a terminal");
        insta::assert_snapshot!(text.replace('\u{1b}', "<ESC>"));
    }
}
