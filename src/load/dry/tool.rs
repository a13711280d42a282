//! The programs that render dry sources: found on the PATH or by path, their
//! versions asked once per program file, and run with nothing but their
//! arguments (no network is ever asked for: every input is local).

use super::super::cache::Cache;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Which tool renders a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Kustomize,
    Helm,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Kustomize => "kustomize",
            Kind::Helm => "helm",
        }
    }
}

/// A tool found and asked its version.
#[derive(Clone, Debug)]
pub struct Tool {
    pub program: PathBuf,
    /// As the provenance records it: `helm v3.22.0`, `kubectl v1.32.4 (kustomize v5.5.0)`.
    pub version: String,
    /// kustomize through `kubectl kustomize` rather than `kustomize build`.
    pub kubectl: bool,
}

impl Tool {
    /// Find the program `configured` names (a name on the PATH or a path)
    /// and its version, from the cache when the program file is the one
    /// asked before: an unchanged fleet runs no tool at all.
    pub fn find(
        kind: Kind,
        configured: Option<&str>,
        root: &Path,
        cache: &Cache,
    ) -> Result<Tool, String> {
        let default = match kind {
            Kind::Kustomize => "kubectl",
            Kind::Helm => "helm",
        };
        let name = configured.unwrap_or(default);
        let program = locate(name, root).ok_or_else(|| match configured {
            Some(_) => format!(
                "`{name}` (`tools.{}` in garrison.yaml) is not a program that can be run",
                kind.name()
            ),
            None => format!("`{name}` is not on the PATH"),
        })?;
        let kubectl = kind == Kind::Kustomize
            && program
                .file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("kubectl"));
        let version =
            cache.tool_version(&identity(&program), || ask_version(kind, kubectl, &program))?;
        Ok(Tool {
            program,
            version,
            kubectl,
        })
    }

    /// Run the tool with `args` in `dir`: what it printed, or why it failed.
    pub fn run(
        &self,
        args: &[String],
        dir: &Path,
        env: &[(&str, &Path)],
    ) -> Result<String, String> {
        let mut command = Command::new(&self.program);
        command.args(args).current_dir(dir).stdin(Stdio::null());
        // Helm reads settings from HELM_* variables (a namespace, a kube
        // version, plugins): none of the machine's may change a render.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("HELM_") {
                command.env_remove(key);
            }
        }
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command
            .output()
            .map_err(|e| format!("cannot run `{}`: {e}", self.program.display()))?;
        // Helm's hint about its own `--debug` flag is no help to a garrison user.
        let stderr: Vec<&str> = std::str::from_utf8(&output.stderr)
            .unwrap_or("")
            .lines()
            .map(str::trim_end)
            .filter(|line| !line.trim().is_empty() && !line.contains("Use --debug flag"))
            .collect();
        let stderr = stderr.join("\n");
        if !output.status.success() {
            let status = output
                .status
                .code()
                .map_or_else(|| "was killed".to_string(), |c| format!("exited with {c}"));
            return Err(if stderr.is_empty() {
                status
            } else {
                format!("{status}: {stderr}")
            });
        }
        String::from_utf8(output.stdout).map_err(|_| "printed output that is not UTF-8".to_string())
    }
}

/// The program `name` names: a path when it has a `/` (relative to the
/// repository root `root`, as every path of garrison.yaml), else the first
/// executable file of that name on the PATH.
fn locate(name: &str, root: &Path) -> Option<PathBuf> {
    locate_in(name, root, std::env::var_os("PATH")?)
}

fn locate_in(name: &str, root: &Path, path: std::ffi::OsString) -> Option<PathBuf> {
    if name.contains('/') {
        let path = root.join(name);
        return is_executable(&path).then(|| path.canonicalize().unwrap_or(path));
    }
    // Absolute: the tool runs in the repository root, where a relative
    // PATH entry would lead elsewhere.
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
        .map(|found| std::path::absolute(&found).unwrap_or(found))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// What identifies one build of a program without reading it: its path,
/// size and modification time.
fn identity(program: &Path) -> Vec<u8> {
    let mut bytes = program.to_string_lossy().into_owned().into_bytes();
    if let Ok(meta) = std::fs::metadata(program) {
        bytes.push(0);
        bytes.extend(meta.len().to_le_bytes());
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        bytes.extend(modified.to_le_bytes());
    }
    bytes
}

fn ask_version(kind: Kind, kubectl: bool, program: &Path) -> Result<String, String> {
    let run = |args: &[&str]| -> Result<String, String> {
        let output = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run `{}`: {e}", program.display()))?;
        if !output.status.success() {
            return Err(format!(
                "`{} {}` failed: {}",
                program.display(),
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    match (kind, kubectl) {
        (Kind::Helm, _) => Ok(format!(
            "helm {}",
            run(&["version", "--template", "{{.Version}}"])?
        )),
        (Kind::Kustomize, true) => {
            let text = run(&["version", "--client", "-o", "json"])?;
            let value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| format!("`kubectl version` printed what is not JSON: {e}"))?;
            let field = |pointer: &str| {
                value
                    .pointer(pointer)
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("unknown")
                    .to_string()
            };
            Ok(format!(
                "kubectl {} (kustomize {})",
                field("/clientVersion/gitVersion"),
                field("/kustomizeVersion")
            ))
        }
        (Kind::Kustomize, false) => Ok(format!("kustomize {}", run(&["version"])?)),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_program_found_through_a_relative_path_entry_is_named_absolutely() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = PathBuf::from(format!("target/tmp-locate-{}/bin", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let program = dir.join("helm");
        std::fs::write(&program, "#!/bin/sh\n").ok();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).ok();
        let found = locate_in(
            "helm",
            Path::new("/elsewhere"),
            dir.clone().into_os_string(),
        );
        let _ = std::fs::remove_dir_all(dir.parent().unwrap_or(&dir));
        let found = found.unwrap_or_default();
        assert!(found.is_absolute(), "{}", found.display());
        assert!(found.ends_with("bin/helm"), "{}", found.display());
    }
}
