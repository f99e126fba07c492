//! The registry: every crate of the workspace that registers variants is
//! linked into it (through the `ccl` facade, which the CLI and every test
//! use), names are unique and well formed, and lookups say what is known.

use std::path::{Path, PathBuf};

use ccl as _;

/// The workspace's root.
fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ccl-testkit is a folder of the workspace")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for path in entries.map(|e| e.expect("a readable folder").path()) {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// Whether Rust source registers a variant: through `register_variant!`, or
/// an `Algorithm` submitted to `inventory` by hand. Comments (the macros'
/// own docs) do not count.
fn registers_variants(source: &str) -> bool {
    let code: String = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    code.contains("register_variant! {")
        || (code.contains("submit! {") && code.contains("Algorithm {"))
}

/// The package name of the crate in `dir`, from its manifest.
fn package_name(dir: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let line = manifest.lines().find(|l| l.starts_with("name = "))?;
    Some(line["name = ".len()..].trim().trim_matches('"').to_string())
}

/// The workspace's crates (every `ccl*` folder with a manifest, as the
/// workspace's members glob says) whose library sources register variants,
/// by package name. The shared layers that only define the macros
/// (`ccl-core`, `ccl-cuda`) register none.
fn registering_crates() -> Vec<String> {
    let mut crates = Vec::new();
    for entry in std::fs::read_dir(workspace_root()).expect("the workspace is readable") {
        let dir = entry.expect("a readable folder").path();
        let is_member = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == "ccl" || n.starts_with("ccl-"));
        let Some(name) = package_name(&dir).filter(|_| is_member) else {
            continue;
        };
        let registers = rust_files(&dir.join("src")).iter().any(|file| {
            let source = std::fs::read_to_string(file).expect("a readable source file");
            // The macro's own definition and its docs are not a registration.
            !source.contains("macro_rules! register_variant") && registers_variants(&source)
        });
        if registers {
            crates.push(name);
        }
    }
    crates.sort();
    crates
}

#[test]
fn every_crate_that_registers_variants_is_linked() {
    let crates = registering_crates();
    for expected in ["ccl-cpu", "ccl-cuda-ha4", "ccl-cuda-npp"] {
        assert!(crates.iter().any(|c| c == expected), "{crates:?}");
    }
    let registry = ccl_core::registry();
    for name in &crates {
        assert!(
            registry.iter().any(|a| a.crate_name == name),
            "{name} registers variants but is not linked into the `ccl` facade's registry: \
             add `{name} = {{ path = \"../{name}\" }}` to ccl/Cargo.toml's [dependencies]"
        );
    }
}

#[test]
fn registrations_are_recognised() {
    assert!(registers_variants(
        "ccl_cuda::register_variant! {\n    name: \"x\","
    ));
    assert!(registers_variants(
        "ccl_core::inventory::submit! {\n    Algorithm {\n"
    ));
    assert!(!registers_variants("inventory::submit! { KERNELS }"));
    assert!(!registers_variants(
        "/// ccl_core::inventory::submit! {\n///     ccl_core::Algorithm {\n"
    ));
}

#[test]
fn registry_is_sorted_by_unique_names_and_aliases() {
    let registry = ccl_core::registry();
    let names: Vec<&str> = registry.iter().map(|a| a.name).collect();
    assert!(
        names.windows(2).all(|pair| pair[0] < pair[1]),
        "not sorted, or a name is registered twice: {names:?}"
    );
    let mut all: Vec<&str> = registry
        .iter()
        .flat_map(|a| std::iter::once(a.name).chain(a.aliases.iter().copied()))
        .collect();
    all.sort_unstable();
    let count = all.len();
    all.dedup();
    assert_eq!(all.len(), count, "a name or alias is used twice: {all:?}");
}

#[test]
fn every_entry_is_well_formed() {
    for algorithm in ccl_core::registry() {
        let name = algorithm.name;
        for n in std::iter::once(name).chain(algorithm.aliases.iter().copied()) {
            assert!(
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "`{n}` is not kebab-case"
            );
        }
        assert!(
            !algorithm.connectivities.is_empty(),
            "{name}: no connectivity"
        );
        assert!(
            algorithm.labeler.is_some() || algorithm.analyzer.is_some(),
            "{name}: neither labels nor analyzes"
        );
        assert!(!algorithm.summary.is_empty(), "{name}: no summary");
    }
}

#[test]
fn lookups_find_names_and_aliases_and_list_the_known() {
    assert!(ccl_core::find(ccl_testkit::verify::REFERENCE).is_ok());
    assert_eq!(ccl_core::find("ha8").unwrap().name, "ha8-64");
    let message = ccl_core::find("no-such-variant").unwrap_err().to_string();
    for algorithm in ccl_core::registry() {
        assert!(message.contains(algorithm.name), "{message}");
    }
}

#[test]
fn each_task_and_connectivity_has_at_most_one_claimed_default_that_runs_it() {
    use ccl_core::{Connectivity, Task};
    let registry = ccl_core::registry();
    for task in [Task::Label, Task::Analyze] {
        for connectivity in Connectivity::PLANE {
            let claims: Vec<&ccl_core::Algorithm> = registry
                .iter()
                .copied()
                .filter(|a| a.preferred_for.contains(&(task, connectivity)))
                .collect();
            assert!(
                claims.len() <= 1,
                "{task} {connectivity}: claimed by {:?}",
                claims.iter().map(|a| a.name).collect::<Vec<_>>()
            );
            for claimant in &claims {
                assert!(
                    claimant.performs(task) && claimant.supports(connectivity),
                    "{} claims {task} {connectivity}, which it cannot run",
                    claimant.name
                );
                // Where it runs, it is what a caller who names none gets.
                if claimant.probe().is_ok() {
                    let default = ccl_core::default_algorithm(task, connectivity).unwrap();
                    assert_eq!(default.name, claimant.name, "{task} {connectivity}");
                }
            }
        }
    }
    // The committed GPU sweep's choices.
    let claimant = |task, connectivity| {
        registry
            .iter()
            .find(|a| a.preferred_for.contains(&(task, connectivity)))
            .map(|a| a.name)
    };
    for task in [Task::Label, Task::Analyze] {
        for connectivity in Connectivity::PLANE {
            assert_eq!(
                claimant(task, connectivity),
                Some("flsl-cd"),
                "{task} {connectivity}"
            );
        }
    }
}
