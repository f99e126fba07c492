//! The registry: every algorithm crate of the workspace is linked into it
//! (through the `ccl` facade, which the CLI and every test use), names are
//! unique and well formed, and lookups say what is known.

use ccl as _;

/// The workspace's members, from its manifest.
const WORKSPACE_MANIFEST: &str = include_str!("../../Cargo.toml");

/// The members that hold algorithms: `ccl-cpu` and every `ccl-cuda-*`.
fn algorithm_crates() -> Vec<&'static str> {
    let members = WORKSPACE_MANIFEST
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .expect("the workspace manifest lists its members")
        .0;
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| *m == "ccl-cpu" || m.starts_with("ccl-cuda-"))
        .collect()
}

#[test]
fn every_algorithm_crate_of_the_workspace_is_linked() {
    let crates = algorithm_crates();
    assert!(
        crates.contains(&"ccl-cpu") && crates.contains(&"ccl-cuda-ha4"),
        "{crates:?}"
    );
    let registry = ccl_core::registry();
    for name in crates {
        assert!(
            registry.iter().any(|a| a.crate_name == name),
            "{name} is a workspace member but registers nothing in the `ccl` facade's \
             registry: add it to ccl/Cargo.toml and `use {} as _;` to ccl/src/lib.rs",
            name.replace('-', "_")
        );
    }
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
