//! Where a typed input was written: its file and the position tree of its
//! text, which every typed kind keeps beside its fields so later stages can
//! point at the exact field they complain about. Its own file so the kinds
//! and `inputs`, which gathers them, both import it without importing each
//! other.

use crate::diag::{FileId, Origin};
use crate::node::Node;

/// A typed document's text position tree, kept so later stages can point
/// at the exact field they complain about.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub file: FileId,
    pub node: Node,
}

impl Document {
    /// The origin of the field at `path` (or of its nearest written ancestor).
    pub fn at(&self, path: &[&str]) -> Origin {
        Origin {
            file: self.file,
            pos: self.node.locate(path),
        }
    }
    pub fn origin(&self) -> Origin {
        Origin {
            file: self.file,
            pos: self.node.pos,
        }
    }
}
