//! The container image (`.ci/container/Dockerfile`), built with Docker and
//! run as the image's own user: `garrison --version`, a render of
//! `testdata/fleet` into a mounted directory and onto a branch of a
//! mounted repository that another user owns; and the Argo CD plugin's
//! definition where Argo CD's cmp-server reads it.
//!
//! The image is built from the binary these tests run, where the release
//! workflow builds it from the release's static binaries. Its base is the
//! Dockerfile's `BASE` argument: here a Debian bookworm made with
//! mmdebstrap from Debian's packages and imported as
//! [`BASE_IMAGE`] (once; it is kept), since this suite needs no registry
//! of container images; the image's own `apt-get` runs on the host's
//! network. Docker's daemon must run (`.ci/test` installs and starts it);
//! without one the test fails, unless `GARRISON_SKIP_CONTAINER_TESTS=1`
//! says, for a machine where no container can run, to leave it out.

use crate::support::{
    copy_dir, git, read_tree, render_to, root, run_program, stdout, temp, testdata, transcript,
};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The local base image the test builds on.
const BASE_IMAGE: &str = "garrison-test/debian:bookworm";
/// The image the test builds.
const IMAGE: &str = "garrison-test/garrison:smoke";
/// The variable that leaves these tests out where no container can run.
const OPT_OUT: &str = "GARRISON_SKIP_CONTAINER_TESTS";

fn docker() -> Command {
    let mut command = Command::new("docker");
    // The classic builder: it needs no buildx plugin and reads the same
    // Dockerfile (TARGETARCH is passed, as BuildKit would set it).
    command.env("DOCKER_BUILDKIT", "0");
    command
}

/// Whether the opt-out is set.
fn opted_out() -> bool {
    std::env::var_os(OPT_OUT).is_some_and(|v| v == "1")
}

/// A daemon answers; otherwise the test fails saying what to do.
fn require_docker() {
    let info = docker()
        .args(["info", "--format", "{{.ServerVersion}}"])
        .stdin(Stdio::null())
        .output();
    match info {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "Docker's daemon does not answer, and the container image test needs it: start it (`.ci/test` installs Debian's docker.io and starts dockerd, as root), or set {OPT_OUT}=1 where no container can run\n{}",
            transcript(&output)
        ),
        Err(e) => panic!(
            "`docker` cannot run ({e}), and the container image test needs it: install Debian's docker.io (`.ci/test` does, as root), or set {OPT_OUT}=1 where no container can run"
        ),
    }
}

/// [`BASE_IMAGE`], made with mmdebstrap unless Docker has it already.
fn base_image() {
    let inspect = run_program(docker().args(["image", "inspect", BASE_IMAGE]), "docker");
    if inspect.status.success() {
        return;
    }
    let made = run_program(
        Command::new("bash").args([
            "-c",
            "set -o pipefail; mmdebstrap --quiet --variant=minbase bookworm - http://deb.debian.org/debian | docker import - \"$0\"",
            BASE_IMAGE,
        ]),
        "mmdebstrap",
    );
    assert!(
        made.status.success(),
        "cannot make the base image {BASE_IMAGE} with mmdebstrap (install Debian's mmdebstrap; `.ci/test` does):\n{}",
        transcript(&made)
    );
}

/// The image, built from the Dockerfile with the tested binary as
/// `amd64/garrison` of its context.
fn build_image(dir: &Path) {
    let context = dir.join("context");
    std::fs::create_dir_all(context.join("amd64")).unwrap_or_else(|e| panic!("{e}"));
    for file in ["Dockerfile", "plugin.yaml"] {
        std::fs::copy(root().join(".ci/container").join(file), context.join(file))
            .unwrap_or_else(|e| panic!("cannot copy {file}: {e}"));
    }
    std::fs::copy(
        env!("CARGO_BIN_EXE_garrison"),
        context.join("amd64/garrison"),
    )
    .unwrap_or_else(|e| panic!("cannot copy the binary: {e}"));
    let built = run_program(
        docker()
            .args(["build", "--quiet", "--network", "host", "--build-arg"])
            .arg(format!("BASE={BASE_IMAGE}"))
            .args(["--build-arg", "TARGETARCH=amd64", "--tag", IMAGE])
            .arg(&context),
        "docker build",
    );
    assert!(built.status.success(), "{}", transcript(&built));
}

/// `args` run in the image, `dir` mounted at `/work` as its working directory.
fn in_image(dir: &Path, entrypoint: Option<&str>, args: &[&str]) -> Output {
    let mut command = docker();
    command.args(["run", "--rm", "--network", "none", "-v"]);
    command.arg(format!("{}:/work", dir.display()));
    command.args(["-w", "/work"]);
    if let Some(entrypoint) = entrypoint {
        command.args(["--entrypoint", entrypoint]);
    }
    command.arg(IMAGE).args(args);
    run_program(&mut command, "docker run")
}

/// Everything under `dir` readable and writable by the image's user, as a
/// checkout another user owns is.
fn open_to_all(dir: &Path) {
    let chmod = run_program(
        Command::new("chmod").args(["-R", "a+rwX"]).arg(dir),
        "chmod",
    );
    assert!(chmod.status.success(), "{}", transcript(&chmod));
}

#[test]
fn the_image_runs_garrison_as_its_own_user_and_renders_the_example_fleet() {
    if opted_out() {
        println!("{OPT_OUT}=1: the container image is not built or tested");
        return;
    }
    require_docker();
    let dir = temp();
    base_image();
    build_image(dir.path());
    let work = dir.path().join("work");
    copy_dir(&testdata().join("fleet/repo"), &work.join("fleet"));

    let version = in_image(&work, None, &["--version"]);
    assert!(version.status.success(), "{}", transcript(&version));
    assert!(
        stdout(&version).starts_with(&format!("garrison {}", env!("CARGO_PKG_VERSION"))),
        "{}",
        transcript(&version)
    );
    let user = in_image(&work, Some("id"), &["-u"]);
    assert_eq!(stdout(&user).trim(), "999", "{}", transcript(&user));
    let git_version = in_image(&work, Some("git"), &["--version"]);
    assert!(git_version.status.success(), "{}", transcript(&git_version));

    // A render into a mounted directory: what the tested binary renders here.
    open_to_all(&work);
    let rendered = in_image(&work, None, &["render", "--repo", "fleet", "--out", "out"]);
    assert!(rendered.status.success(), "{}", transcript(&rendered));
    let expected = dir.path().join("expected");
    let here = render_to(&work.join("fleet"), &expected, &["-q", "--no-cache"]);
    assert!(here.status.success(), "{}", transcript(&here));
    let tree = read_tree(&work.join("out"));
    assert!(tree.keys().any(|p| p.starts_with("clusters/eu-central-1/")));
    assert_eq!(tree, read_tree(&expected));

    // Onto a branch of a repository owned by another user than the image's.
    let repo = dir.path().join("repo");
    copy_dir(&testdata().join("fleet/repo"), &repo.join("fleet"));
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "the fleet"]);
    open_to_all(&repo);
    let committed = in_image(
        &repo,
        None,
        &["render", "--repo", ".", "--branch", "rendered"],
    );
    assert!(committed.status.success(), "{}", transcript(&committed));
    let files = git(&repo, &["ls-tree", "-r", "--name-only", "rendered"]);
    assert!(
        files
            .lines()
            .any(|f| f == "clusters/eu-central-1/kustomization.yaml"),
        "{files}"
    );

    // The Argo CD plugin the image carries, where the cmp-server reads it.
    let plugin = in_image(
        &work,
        Some("cat"),
        &["/home/argocd/cmp-server/config/plugin.yaml"],
    );
    assert_eq!(
        stdout(&plugin),
        crate::support::read(&root().join(".ci/container/plugin.yaml"))
    );
}

/// The release publishes the image from the tag's build: only its own job
/// may write packages, and it tags the image with the version and builds
/// it from this Dockerfile with the release's Linux binaries.
#[test]
fn the_release_publishes_the_image_of_its_version_to_ghcr() {
    let text = crate::support::read(&root().join(".github/workflows/release.yml"));
    let workflow = &crate::support::yaml(&text, "release.yml")[0];
    let image = &workflow["jobs"]["image"];
    assert_eq!(image["needs"], "release", "published once the release is");
    assert_eq!(
        image["permissions"],
        serde_json::json!({ "contents": "read", "packages": "write" })
    );
    for (name, job) in workflow["jobs"].as_object().into_iter().flatten() {
        if name != "image" {
            assert!(
                job.pointer("/permissions/packages").is_none(),
                "{name} may write packages"
            );
        }
    }
    let steps = serde_json::to_string(&image["steps"]).unwrap_or_default();
    for needle in [
        "garrison-*-linux-musl",
        "sha256sum -c",
        ".ci/container/Dockerfile .ci/container/plugin.yaml context/",
        "--platform linux/amd64,linux/arm64",
        "ghcr.io/${GITHUB_REPOSITORY,,}",
        "--tag \\\"$image:$version\\\"",
        "--push",
    ] {
        assert!(
            steps.contains(needle),
            "the image job lacks `{needle}`: {steps}"
        );
    }
}
