//! Every registered CUDA kernel module compiles with NVRTC for Ampere
//! (sm_80) and Hopper (sm_90), without a GPU. Skips where NVRTC is absent,
//! fails under CI, which installs it.

use ccl as _;
// The strip labeler's renumbering and column kernels register there.
use ccl_scale as _;

#[test]
fn every_kernel_module_compiles_for_sm80_and_sm90() {
    if !ccl_testkit::policy::nvrtc_test_runs(ccl_cuda::runtime::nvrtc_available()) {
        return;
    }
    let modules = ccl_cuda::runtime::kernel_sources();
    let names: Vec<&str> = modules.iter().map(|m| m.name).collect();
    for expected in [
        "ccl_features",
        "ccl_bits",
        "ccl_arrays",
        "ha4",
        "npp",
        "playne",
        "playne_volume",
        "tiles",
        "auto",
        "ke",
        "block",
        "block_volume",
        "flsl",
        "ha_cca",
        "le",
        "kni",
        "dlp",
        "ccl_renumber",
        "ccl_strip_columns",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} kernels not registered: {names:?}"
        );
    }
    for module in modules {
        for arch in [(8, 0), (9, 0)] {
            if let Err(e) = ccl_cuda::runtime::compile_cubin(module, arch) {
                panic!("{} for sm_{}{}: {e}", module.name, arch.0, arch.1);
            }
        }
    }
}
