//! The registry holds every variant the workspace links, sorted by name.

/// Every variant `ccl-bench` links. Adding a variant adds its name here.
const EXPECTED: &[&str] = &["cpu-uf", "ha4-32", "ha4-64", "ha8", "ha8-32", "npp-uf"];

#[test]
fn every_expected_variant_is_registered() {
    ccl_bench::link_all();
    let names: Vec<&str> = ccl_core::registry().iter().map(|a| a.name).collect();
    assert!(
        !names.is_empty(),
        "the registry is empty: no algorithm crate is linked"
    );
    for expected in EXPECTED {
        assert!(
            names.contains(expected),
            "`{expected}` is not registered; registered: {names:?}"
        );
    }
}

#[test]
fn registry_is_sorted_by_unique_names() {
    ccl_bench::link_all();
    let names: Vec<&str> = ccl_core::registry().iter().map(|a| a.name).collect();
    assert!(
        names.windows(2).all(|pair| pair[0] < pair[1]),
        "not sorted, or a name is registered twice: {names:?}"
    );
}

#[test]
fn every_entry_is_well_formed() {
    ccl_bench::link_all();
    for algorithm in ccl_core::registry() {
        let name = algorithm.name;
        assert!(
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "`{name}` is not kebab-case"
        );
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
fn reference_is_registered_and_unknown_names_list_the_known() {
    ccl_bench::link_all();
    assert!(ccl_core::find(ccl_bench::verify::REFERENCE).is_ok());
    let message = ccl_core::find("no-such-variant").unwrap_err().to_string();
    for expected in EXPECTED {
        assert!(message.contains(expected), "{message}");
    }
}
