//! The adapter kernels compile with NVRTC for Ampere and Hopper, no GPU needed.

use ccl_cuda_npp as _;

#[test]
fn npp_module_compiles_for_sm80_and_sm90() {
    if !ccl_cuda::nvrtc_available() {
        assert!(std::env::var_os("CI").is_none(), "CI must install NVRTC");
        eprintln!("skipped: NVRTC is not installed");
        return;
    }
    let module = ccl_cuda::kernel_sources()
        .into_iter()
        .find(|k| k.name == "npp")
        .expect("npp is registered");
    for arch in [(8, 0), (9, 0)] {
        if let Err(e) = ccl_cuda::compile_cubin(module, arch) {
            panic!("sm_{}{}: {e}", arch.0, arch.1);
        }
    }
}
