//! Parsed files remembered between runs, keyed by their bytes.
//!
//! YAML parsing is most of what a re-render costs when little changed: every
//! source file and every previous binding must be parsed to know what changed,
//! at about 10 MB/s per core. The cache keeps each parse result under a
//! SHA-256 of the garrison version, what was parsed (source documents or a
//! binding), the parse limits and the file's bytes, so a file parsed before is
//! decoded from a compact binary form instead, about ten times faster.
//!
//! The cache can only make a run faster, never change its result: a key names
//! everything the parse depends on (the build itself included: a fingerprint
//! of garrison's source and locked dependencies, made by `src/build.rs`, so
//! two builds of one version never share entries), the whole cache file carries a SHA-256
//! that is checked before any entry is trusted, and a cache that is missing,
//! damaged, from another version, unreadable or unwritable is simply not used.
//! Parse errors are never cached, so their diagnostics are always fresh.
//!
//! One file, `parse.bin`, holds every entry. It is read whole at the start and
//! rewritten (to a temporary file, then renamed) only when a run parsed
//! something new or left an entry unused, so it holds exactly what the last
//! run needed and never grows past one repository and one previous render.

use super::yaml::Limits;
use crate::model::meta::ObjectKey;
use crate::model::record::{BindingRecord, PolicyRef};
use crate::node::{Node, NodeKind, Pos};
use serde_json::Number;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The cache directory's name inside the repository, when none is given.
pub const DEFAULT_DIR: &str = ".garrison-cache";

const FILE: &str = "parse.bin";
/// The file's first bytes: the format; a different format is not read.
const MAGIC: &[u8] = b"garrison parse cache 2\n";

type Key = [u8; 32];

/// What a cached entry is the parse of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Source = 1,
    Binding = 2,
    /// A source file whose templates passed schema validation: no payload.
    Validated = 3,
    /// What a dry source's tool printed, keyed by everything it read.
    Rendered = 4,
    /// A tool's version, keyed by its program file's path, size and time.
    ToolVersion = 5,
}

impl Kind {
    fn from_byte(byte: u8) -> Option<Kind> {
        match byte {
            1 => Some(Kind::Source),
            2 => Some(Kind::Binding),
            3 => Some(Kind::Validated),
            4 => Some(Kind::Rendered),
            5 => Some(Kind::ToolVersion),
            _ => None,
        }
    }
}

/// One entry of the cache file.
struct Entry {
    kind: Kind,
    /// The payload's place in [`Cache::data`].
    start: usize,
    end: usize,
    used: AtomicBool,
}

/// A cache opened for one run: the entries read at the start, and those
/// parsed during the run.
#[derive(Default)]
pub struct Cache {
    /// Where the cache lives; `None` when caching is off.
    dir: Option<PathBuf>,
    /// The file's entries, back to back.
    data: Vec<u8>,
    /// The file's entries by key.
    index: HashMap<Key, Entry>,
    /// Entries parsed during this run.
    fresh: Mutex<Vec<(Key, Kind, Vec<u8>)>>,
    /// Which kinds of file this run looked up: unused entries of a kind it
    /// never looked up (bindings, for `validate`) are kept.
    consulted: [AtomicBool; 5],
    /// Entries are used but never written back ([`Cache::read_only`]).
    read_only: bool,
}

impl Cache {
    /// No cache: every file is parsed.
    pub fn disabled() -> Cache {
        Cache::default()
    }

    /// The cache in `dir`, or no cache without one.
    pub fn open_in(dir: Option<&Path>) -> Cache {
        dir.map_or_else(Cache::disabled, Cache::open)
    }

    /// This cache, used but never written: for a command that must leave
    /// the repository as it found it (`validate`), whose parses are then
    /// lost to the next run.
    pub fn read_only(self) -> Cache {
        Cache {
            read_only: true,
            ..self
        }
    }

    /// The cache in `dir`. A missing or unreadable cache is an empty one.
    pub fn open(dir: &Path) -> Cache {
        let mut cache = Cache {
            dir: Some(dir.to_path_buf()),
            ..Cache::default()
        };
        if let Ok(bytes) = std::fs::read(dir.join(FILE)) {
            if let Some(index) = index_of(&bytes) {
                cache.index = index;
                cache.data = bytes;
            }
        }
        cache
    }

    /// The documents of a source file, from the cache or from `parse`.
    pub fn documents<E>(
        &self,
        text: &str,
        limits: &Limits,
        parse: impl FnOnce() -> Result<Vec<Node>, E>,
    ) -> Result<Vec<Node>, E> {
        if self.dir.is_none() {
            return parse();
        }
        let key = key(Kind::Source, &limits_bytes(limits), text.as_bytes());
        if let Some(documents) = self.lookup(Kind::Source, &key, |payload| {
            decode_documents(payload, limits.max_depth)
        }) {
            return Ok(documents);
        }
        let documents = parse()?;
        self.remember(key, Kind::Source, encode_documents(&documents));
        Ok(documents)
    }

    /// A previous binding file read back, from the cache or from `parse`
    /// (`None`: the file is not a binding garrison can read).
    pub fn binding(
        &self,
        bytes: &[u8],
        parse: impl FnOnce() -> Option<(ObjectKey, BindingRecord)>,
    ) -> Option<(ObjectKey, BindingRecord)> {
        if self.dir.is_none() {
            return parse();
        }
        let key = key(Kind::Binding, &[], bytes);
        if let Some(binding) = self.lookup(Kind::Binding, &key, decode_binding) {
            return binding;
        }
        let binding = parse();
        self.remember(key, Kind::Binding, encode_binding(binding.as_ref()));
        binding
    }

    /// Whether a source file with `text` was found valid before against the
    /// schemas `catalog` fingerprints; `check` decides it otherwise (true:
    /// valid, no diagnostic at all), and a valid file is remembered.
    pub fn validated(&self, catalog: &[u8], text: &str, check: impl FnOnce() -> bool) -> bool {
        if self.dir.is_none() {
            return check();
        }
        let key = key(Kind::Validated, catalog, text.as_bytes());
        if self.lookup(Kind::Validated, &key, |_| Some(())).is_some() {
            return true;
        }
        let valid = check();
        if valid {
            self.remember(key, Kind::Validated, Vec::new());
        }
        valid
    }

    /// What a dry source rendered, from the cache (under `fingerprint`, a
    /// digest of everything the tool reads) or from `run`; a failed run is
    /// never remembered.
    pub fn rendered<E>(
        &self,
        fingerprint: &[u8],
        run: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        self.text_entry(Kind::Rendered, fingerprint, run)
    }

    /// A tool's version, from the cache (under `identity`: its program
    /// file's path, size and modification time) or from `ask`.
    pub fn tool_version<E>(
        &self,
        identity: &[u8],
        ask: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        self.text_entry(Kind::ToolVersion, identity, ask)
    }

    fn text_entry<E>(
        &self,
        kind: Kind,
        bytes: &[u8],
        make: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        if self.dir.is_none() {
            return make();
        }
        let key = key(kind, &[], bytes);
        if let Some(text) = self.lookup(kind, &key, |payload| {
            String::from_utf8(payload.to_vec()).ok()
        }) {
            return Ok(text);
        }
        let text = make()?;
        self.remember(key, kind, text.clone().into_bytes());
        Ok(text)
    }

    /// The entry under `key`, decoded. An entry that does not decode is a
    /// miss and is not marked used, so the fresh parse replaces it.
    fn lookup<T>(
        &self,
        kind: Kind,
        key: &Key,
        decode: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Option<T> {
        self.consulted[kind as usize - 1].store(true, Ordering::Relaxed);
        let entry = self.index.get(key)?;
        let value = decode(self.data.get(entry.start..entry.end)?)?;
        entry.used.store(true, Ordering::Relaxed);
        Some(value)
    }

    fn remember(&self, key: Key, kind: Kind, payload: Vec<u8>) {
        if let Ok(mut fresh) = self.fresh.lock() {
            fresh.push((key, kind, payload));
        }
    }

    /// Whether the next run needs `entry`: it was used, or its kind was not
    /// looked up at all.
    fn keeps(&self, entry: &Entry) -> bool {
        entry.used.load(Ordering::Relaxed)
            || !self.consulted[entry.kind as usize - 1].load(Ordering::Relaxed)
    }

    /// Write the cache back when this run changed what it should hold: the
    /// entries it used and those it parsed. Failing to write only costs the
    /// next run its speed, so the caller may ignore the error.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(dir) = self.dir.as_ref().filter(|_| !self.read_only) else {
            return Ok(());
        };
        let fresh = std::mem::take(&mut *self.fresh.lock().map_err(|_| {
            std::io::Error::other("a parse panicked while the cache was being filled")
        })?);
        if fresh.is_empty() && self.index.values().all(|entry| self.keeps(entry)) {
            return Ok(());
        }
        // Fresh entries first: where a key is in both, the fresh one stays.
        let mut entries: Vec<(&Key, Kind, &[u8])> = fresh
            .iter()
            .map(|(key, kind, payload)| (key, *kind, payload.as_slice()))
            .collect();
        entries.extend(
            self.index
                .iter()
                .filter(|(_, entry)| self.keeps(entry))
                .filter_map(|(key, e)| Some((key, e.kind, self.data.get(e.start..e.end)?))),
        );
        entries.sort_by(|a, b| a.0.cmp(b.0));
        entries.dedup_by(|later, first| later.0 == first.0);
        let mut bytes = MAGIC.to_vec();
        for (key, kind, payload) in entries {
            bytes.extend_from_slice(key);
            bytes.push(kind as u8);
            let length = u32::try_from(payload.len()).map_err(std::io::Error::other)?;
            bytes.extend_from_slice(&length.to_le_bytes());
            bytes.extend_from_slice(payload);
        }
        let sum = Sha256::digest(&bytes);
        bytes.extend_from_slice(&sum);
        create_dir(dir)?;
        let temporary = dir.join(format!("{FILE}.{}.tmp", unique()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .and_then(|mut file| std::io::Write::write_all(&mut file, &bytes))
            .and_then(|()| std::fs::rename(&temporary, dir.join(FILE)));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        sweep(dir);
        written
    }
}

/// A name no other process uses at the same time: pid, time and a counter.
fn unique() -> String {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{}-{nanos:x}-{count}", std::process::id())
}

/// Remove temporary files of runs killed before their rename (older than an
/// hour, so that no running save loses its file).
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let hour = std::time::Duration::from_secs(3600);
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > hour));
        if name.starts_with(FILE) && name.ends_with(".tmp") && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Create the cache directory, marked so that git and backup tools pass it
/// by; a directory that exists is the user's and is left as it is. The
/// directory is made whole beside its place and renamed into it, so it
/// never exists without its markers.
fn create_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let Some(name) = dir.file_name() else {
        return std::fs::create_dir_all(dir);
    };
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let staging = parent.join(format!(".{}.{}.tmp", name.to_string_lossy(), unique()));
    std::fs::create_dir(&staging)?;
    let marked = std::fs::write(staging.join(".gitignore"), "# garrison's parse cache\n*\n")
        .and_then(|()| {
            std::fs::write(
                staging.join("CACHEDIR.TAG"),
                "Signature: 8a477f597d28d172789f06886806bc55\n# garrison's parse cache: https://bford.info/cachedir/\n",
            )
        })
        .and_then(|()| std::fs::rename(&staging, dir));
    if marked.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    // Another run may have made it meanwhile: that is as good.
    if dir.is_dir() {
        Ok(())
    } else {
        marked
    }
}

/// Check a cache file whole and index its entries; `None` if it is not one.
fn index_of(bytes: &[u8]) -> Option<HashMap<Key, Entry>> {
    let body_end = bytes.len().checked_sub(32)?;
    let (body, sum) = bytes.split_at(body_end);
    if !body.starts_with(MAGIC) || Sha256::digest(body).as_slice() != sum {
        return None;
    }
    let mut index = HashMap::new();
    let mut at = MAGIC.len();
    while at < body_end {
        let key: Key = body.get(at..at + 32)?.try_into().ok()?;
        let kind = Kind::from_byte(*body.get(at + 32)?)?;
        let length = u32::from_le_bytes(body.get(at + 33..at + 37)?.try_into().ok()?);
        let start = at + 37;
        let end = start.checked_add(usize::try_from(length).ok()?)?;
        if end > body_end {
            return None;
        }
        let used = AtomicBool::new(false);
        index.insert(
            key,
            Entry {
                kind,
                start,
                end,
                used,
            },
        );
        at = end;
    }
    Some(index)
}

fn key(kind: Kind, context: &[u8], bytes: &[u8]) -> Key {
    let mut hasher = Sha256::new();
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update([0]);
    hasher.update(env!("GARRISON_BUILD_ID").as_bytes());
    hasher.update([0, kind as u8]);
    hasher.update((context.len() as u64).to_le_bytes());
    hasher.update(context);
    hasher.update(bytes);
    hasher.finalize().into()
}

fn limits_bytes(limits: &Limits) -> Vec<u8> {
    [
        limits.max_documents,
        limits.max_nodes,
        limits.max_depth,
        limits.max_aliases,
    ]
    .iter()
    .flat_map(|n| (*n as u64).to_le_bytes())
    .collect()
}

// The encoding: unsigned LEB128 integers, strings as length and UTF-8 bytes,
// a node as its position, a tag and the tag's payload.

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UNSIGNED: u8 = 3;
const NEGATIVE: u8 = 4;
const FLOAT: u8 = 5;
const STRING: u8 = 6;
const SEQ: u8 = 7;
const MAP: u8 = 8;

fn put_uint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_uint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_pos(out: &mut Vec<u8>, pos: Pos) {
    put_uint(out, u64::from(pos.line));
    put_uint(out, u64::from(pos.column));
}

/// A source file's documents in the cache's encoding.
pub fn encode_documents(documents: &[Node]) -> Vec<u8> {
    let mut out = Vec::new();
    put_uint(&mut out, documents.len() as u64);
    for node in documents {
        put_node(&mut out, node);
    }
    out
}

fn put_node(out: &mut Vec<u8>, node: &Node) {
    put_pos(out, node.pos);
    match &node.kind {
        NodeKind::Null => out.push(NULL),
        NodeKind::Bool(false) => out.push(FALSE),
        NodeKind::Bool(true) => out.push(TRUE),
        NodeKind::Number(n) => {
            if let Some(n) = n.as_u64() {
                out.push(UNSIGNED);
                put_uint(out, n);
            } else if let Some(n) = n.as_i64() {
                out.push(NEGATIVE);
                put_uint(out, !(n as u64));
            } else {
                out.push(FLOAT);
                out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
            }
        }
        NodeKind::String(s) => {
            out.push(STRING);
            put_str(out, s);
        }
        NodeKind::Seq(items) => {
            out.push(SEQ);
            put_uint(out, items.len() as u64);
            for item in items {
                put_node(out, item);
            }
        }
        NodeKind::Map(entries) => {
            out.push(MAP);
            put_uint(out, entries.len() as u64);
            for (key, pos, value) in entries {
                put_str(out, key);
                put_pos(out, *pos);
                put_node(out, value);
            }
        }
    }
}

fn encode_binding(binding: Option<&(ObjectKey, BindingRecord)>) -> Vec<u8> {
    let mut out = Vec::new();
    let Some((key, binding)) = binding else {
        out.push(0);
        return out;
    };
    out.push(1);
    put_str(&mut out, &key.api_version);
    put_str(&mut out, &key.kind);
    put_option(&mut out, key.namespace.as_deref());
    put_str(&mut out, &key.name);
    put_uint(&mut out, binding.clusters.len() as u64);
    for (name, replicas) in &binding.clusters {
        put_str(&mut out, name);
        put_uint(&mut out, *replicas);
    }
    put_uint(&mut out, binding.replicas);
    put_option(&mut out, binding.placement.as_deref());
    put_option(&mut out, binding.affinity_name.as_deref());
    put_option(&mut out, binding.fort.as_deref());
    put_option(&mut out, binding.digest.as_deref());
    put_uint(&mut out, binding.held.len() as u64);
    for cluster in &binding.held {
        put_str(&mut out, cluster);
    }
    match &binding.withheld {
        None => out.push(0),
        Some(withheld) => {
            out.push(1);
            put_uint(&mut out, withheld.len() as u64);
            for cluster in withheld {
                put_str(&mut out, cluster);
            }
        }
    }
    out.push(u8::from(binding.pinned));
    out.push(u8::from(binding.workload));
    match &binding.policy {
        None => out.push(0),
        Some(policy) => {
            out.push(1);
            put_str(&mut out, &policy.name);
            put_option(&mut out, policy.namespace.as_deref());
        }
    }
    put_uint(&mut out, binding.subscriptions.len() as u64);
    for subscription in &binding.subscriptions {
        put_str(&mut out, subscription);
    }
    put_uint(&mut out, binding.required.len() as u64);
    for cluster in &binding.required {
        put_str(&mut out, cluster);
    }
    out
}

fn put_option(out: &mut Vec<u8>, value: Option<&str>) {
    match value {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

/// The most items reserved up front: a count is only trusted as far as the
/// payload could hold that many items.
const CAPACITY: usize = 1024;

/// Reads an encoded payload; every read fails cleanly past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn uint(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            n |= u64::from(byte & 0x7f).checked_shl(shift)?;
            if byte & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.uint()?).ok()
    }

    /// A count of items still to read, each at least one byte long.
    fn count(&mut self) -> Option<usize> {
        let count = usize::try_from(self.uint()?).ok()?;
        (count <= self.bytes.len() - self.at).then_some(count)
    }

    fn take(&mut self, length: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(length)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }

    fn string(&mut self) -> Option<String> {
        let length = usize::try_from(self.uint()?).ok()?;
        let bytes = self.take(length)?;
        std::str::from_utf8(bytes).ok().map(str::to_string)
    }

    fn flag(&mut self) -> Option<bool> {
        match self.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn option(&mut self) -> Option<Option<String>> {
        match self.byte()? {
            0 => Some(None),
            1 => self.string().map(Some),
            _ => None,
        }
    }

    fn pos(&mut self) -> Option<Pos> {
        Some(Pos {
            line: self.u32()?,
            column: self.u32()?,
        })
    }

    fn node(&mut self, depth: usize) -> Option<Node> {
        let depth = depth.checked_sub(1)?;
        let pos = self.pos()?;
        let kind = match self.byte()? {
            NULL => NodeKind::Null,
            FALSE => NodeKind::Bool(false),
            TRUE => NodeKind::Bool(true),
            UNSIGNED => NodeKind::Number(self.uint()?.into()),
            NEGATIVE => NodeKind::Number((!self.uint()? as i64).into()),
            FLOAT => {
                let bits = self.take(8)?.try_into().ok()?;
                NodeKind::Number(Number::from_f64(f64::from_le_bytes(bits))?)
            }
            STRING => NodeKind::String(self.string()?),
            SEQ => {
                let count = self.count()?;
                let mut items = Vec::with_capacity(count.min(CAPACITY));
                for _ in 0..count {
                    items.push(self.node(depth)?);
                }
                NodeKind::Seq(items)
            }
            MAP => {
                let count = self.count()?;
                let mut entries = Vec::with_capacity(count.min(CAPACITY));
                for _ in 0..count {
                    let key = self.string()?;
                    let key_pos = self.pos()?;
                    entries.push((key, key_pos, self.node(depth)?));
                }
                NodeKind::Map(entries)
            }
            _ => return None,
        };
        Some(Node { pos, kind })
    }

    fn finished(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// Decode a source file's documents; `None` for anything but a whole,
/// well-formed payload no deeper than the parse allowed. Public for the
/// fuzz target: it must refuse, never panic on, bytes it did not write.
pub fn decode_documents(payload: &[u8], max_depth: usize) -> Option<Vec<Node>> {
    let mut reader = Reader::new(payload);
    let count = reader.count()?;
    let mut documents = Vec::with_capacity(count.min(CAPACITY));
    for _ in 0..count {
        documents.push(reader.node(max_depth.saturating_add(2))?);
    }
    reader.finished().then_some(documents)
}

/// Decode a binding; the outer `None` means the payload is not one. Public
/// for the fuzz target.
pub fn decode_binding(payload: &[u8]) -> Option<Option<(ObjectKey, BindingRecord)>> {
    let mut r = Reader::new(payload);
    let binding = match r.byte()? {
        0 => None,
        1 => {
            let key = ObjectKey {
                api_version: r.string()?,
                kind: r.string()?,
                namespace: r.option()?,
                name: r.string()?,
            };
            let count = r.count()?;
            let mut clusters = Vec::with_capacity(count.min(CAPACITY));
            for _ in 0..count {
                clusters.push((r.string()?, r.uint()?));
            }
            let replicas = r.uint()?;
            let placement = r.option()?;
            let affinity_name = r.option()?;
            let fort = r.option()?;
            let digest = r.option()?;
            let count = r.count()?;
            let mut held = BTreeSet::new();
            for _ in 0..count {
                held.insert(r.string()?);
            }
            let withheld = match r.byte()? {
                0 => None,
                1 => {
                    let count = r.count()?;
                    let mut withheld = BTreeSet::new();
                    for _ in 0..count {
                        withheld.insert(r.string()?);
                    }
                    Some(withheld)
                }
                _ => return None,
            };
            let pinned = r.flag()?;
            let workload = r.flag()?;
            let policy = match r.byte()? {
                0 => None,
                1 => Some(PolicyRef {
                    name: r.string()?,
                    namespace: r.option()?,
                }),
                _ => return None,
            };
            let count = r.count()?;
            let mut subscriptions = Vec::with_capacity(count.min(CAPACITY));
            for _ in 0..count {
                subscriptions.push(r.string()?);
            }
            let count = r.count()?;
            let mut required = BTreeSet::new();
            for _ in 0..count {
                required.insert(r.string()?);
            }
            let binding = BindingRecord {
                policy,
                pinned,
                workload,
                clusters,
                replicas,
                placement,
                affinity_name,
                fort,
                held,
                required,
                withheld,
                digest,
                subscriptions,
            };
            Some((key, binding))
        }
        _ => return None,
    };
    r.finished().then_some(binding)
}

#[cfg(test)]
mod tests;
