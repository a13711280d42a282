//! Build script: a fingerprint of the source and the locked dependencies,
//! so that a parse cache written by one build is never read by another
//! (`src/load/cache.rs`): the package version alone is the same for every
//! commit between releases.

use std::hash::{Hash, Hasher};
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("src"), &mut files);
    files.push(root.join("Cargo.lock"));
    files.push(root.join("Cargo.toml"));
    files.sort();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for file in &files {
        file.strip_prefix(root).unwrap_or(file).hash(&mut hasher);
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
        println!("cargo:rerun-if-changed={}", file.display());
    }
    println!("cargo:rerun-if-changed={}", root.join("src").display());
    println!("cargo:rustc-env=GARRISON_BUILD_ID={:016x}", hasher.finish());
}

fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
