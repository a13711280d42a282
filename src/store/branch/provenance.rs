//! Where a committed render came from: the marker file's provenance fields
//! and the commit message (source commit, per-cluster summary, trailers);
//! [`super::hydrator`] writes `hydrator.metadata`. No clock is read: the
//! commit time is the source commit's, and the only time in the tree is
//! the source commit's author date, in `hydrator.metadata`.

use super::SourceCommit;
use crate::model::layout::Format;
use crate::report::Summary;
use std::fmt::Write as _;

pub struct Provenance {
    pub source: Option<SourceCommit>,
    pub allow_dirty: bool,
    /// The source commit's time, so re-rendering the same source gives the same commit.
    pub time: Option<i64>,
}

impl Provenance {
    pub fn new(source: Option<SourceCommit>, allow_dirty: bool) -> Provenance {
        let time = source.as_ref().map(|s| s.time);
        Provenance {
            source,
            allow_dirty,
            time,
        }
    }

    /// The root marker with provenance: format, source commit, subject,
    /// author, version, and the dry sources' tools (`tools`, as the
    /// render's own marker has them).
    pub fn marker(&self, format: Format, tools: Option<serde_json::Value>) -> Vec<u8> {
        let format = match format {
            Format::Manifests => "manifests",
            Format::Work => "work",
        };
        let mut value = serde_json::json!({
            "generator": "garrison",
            "layout": 1,
            "format": format,
            "version": env!("CARGO_PKG_VERSION"),
            "source": self.source.as_ref().map(|s| serde_json::json!({
                "commit": s.commit,
                "subject": s.subject,
                "author": s.author,
                "dirty": s.dirty && self.allow_dirty,
            })),
        });
        if let Some(tools) = tools {
            value["tools"] = tools;
        }
        let mut bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    pub fn commit_message(&self, summary: &Summary) -> String {
        let mut message = match &self.source {
            Some(s) => format!(
                "Render {}: {}\n\n",
                &s.commit[..s.commit.len().min(12)],
                s.subject
            ),
            None => "Render (source is not a git repository)\n\n".to_string(),
        };
        if let Some(s) = &self.source {
            let _ = writeln!(message, "Source commit {} by {}.", s.commit, s.author);
            if s.dirty && self.allow_dirty {
                message.push_str(
                    "Rendered from a working tree with uncommitted changes (--allow-dirty).\n",
                );
            }
            message.push('\n');
        }
        for (cluster, counts) in summary.clusters.iter().filter(|(_, c)| c.any()) {
            let _ = writeln!(
                message,
                "{cluster}: +{} ~{} -{}",
                counts.added, counts.changed, counts.removed
            );
        }
        for (cluster, counts) in summary.held_back.iter().filter(|(_, c)| c.any()) {
            let _ = writeln!(
                message,
                "{cluster} (held): {} change(s) held back",
                counts.added + counts.changed + counts.removed
            );
        }
        for m in &summary.fort_moves {
            let _ = writeln!(message, "fort of {}: {} -> {}", m.app, m.from, m.to);
        }
        message.push('\n');
        if let Some(s) = &self.source {
            let _ = writeln!(message, "Source-Commit: {}", s.commit);
        }
        let _ = writeln!(message, "Garrison-Version: {}", env!("CARGO_PKG_VERSION"));
        message
    }
}
