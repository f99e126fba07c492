//! What the `ccl` binary's integration tests share: a scratch folder per
//! test, the binary run in it, and the assertions on how a run ends.

// Each test crate compiles this module and uses a part of it.
#![allow(dead_code)]

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh, empty folder for one test, named after the test crate and
/// `test`.
pub(crate) fn scratch(test: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-{test}", env!("CARGO_CRATE_NAME")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `ccl` binary. Under a nextest archive (the GPU machine) it is not
/// where cargo built it: nextest says where.
pub(crate) fn ccl_binary() -> OsString {
    std::env::var_os("NEXTEST_BIN_EXE_ccl").unwrap_or_else(|| env!("CARGO_BIN_EXE_ccl").into())
}

/// Runs `ccl` with `args` in `dir`, `input` (if any) on its standard input.
pub(crate) fn ccl_with(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Output {
    let mut child = Command::new(ccl_binary())
        .args(args)
        .current_dir(dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = input {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// Runs `ccl` with `args` in `dir`, nothing on its standard input.
pub(crate) fn ccl(dir: &Path, args: &[&str]) -> Output {
    ccl_with(dir, args, None)
}

/// A run's standard output, which must be UTF-8.
pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Asserts success; returns stdout and stderr.
pub(crate) fn succeeds_with(dir: &Path, args: &[&str], input: Option<&[u8]>) -> (String, String) {
    let output = ccl_with(dir, args, input);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "ccl {args:?} failed: {stderr}");
    (stdout(&output), stderr)
}

/// Asserts success and returns stdout.
pub(crate) fn succeeds(dir: &Path, args: &[&str]) -> String {
    succeeds_with(dir, args, None).0
}

/// Asserts a non-zero exit status and a single `error:` line on stderr that
/// contains `needle`, without a panic; `input` (if any) on standard input.
pub(crate) fn fails_with_input(dir: &Path, args: &[&str], input: Option<&[u8]>, needle: &str) {
    let output = ccl_with(dir, args, input);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "ccl {args:?} succeeded");
    assert!(
        !stderr.contains("panicked"),
        "ccl {args:?} panicked: {stderr}"
    );
    assert_eq!(
        stderr.lines().count(),
        1,
        "ccl {args:?}: not one line: {stderr}"
    );
    assert!(stderr.starts_with("error: "), "ccl {args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "ccl {args:?}: no `{needle}` in: {stderr}"
    );
}

/// [`fails_with_input`] with nothing on standard input.
pub(crate) fn fails_with(dir: &Path, args: &[&str], needle: &str) {
    fails_with_input(dir, args, None, needle);
}
