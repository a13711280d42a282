//! `garrison.yaml` at the repository root: which files are inputs and the parse limits.
//!
//! ```yaml
//! include: ["fleet/**"]        # globs relative to the root; default: every file
//! exclude: ["**/kustomization.yaml"]
//! limits:
//!   maxFileBytes: 16777216
//!   maxDocuments: 10000
//!   maxDepth: 64
//!   maxNodes: 2000000
//!   maxAliases: 1000
//! ```

use super::yaml::Limits;
use serde::Deserialize;

pub const CONFIG_FILE: &str = "garrison.yaml";

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub include: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub limits: LimitsConfig,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LimitsConfig {
    pub max_file_bytes: Option<u64>,
    pub max_documents: Option<usize>,
    pub max_depth: Option<usize>,
    pub max_nodes: Option<usize>,
    pub max_aliases: Option<usize>,
}

/// Files larger than this are refused unless `limits.maxFileBytes` raises it.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

impl Config {
    pub fn max_file_bytes(&self) -> u64 {
        self.limits.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES)
    }
    pub fn parse_limits(&self) -> Limits {
        let default = Limits::default();
        Limits {
            max_documents: self.limits.max_documents.unwrap_or(default.max_documents),
            max_nodes: self.limits.max_nodes.unwrap_or(default.max_nodes),
            max_depth: self.limits.max_depth.unwrap_or(default.max_depth),
            max_aliases: self.limits.max_aliases.unwrap_or(default.max_aliases),
        }
    }
}
