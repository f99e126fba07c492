//! `ccl-bench`: the `ccl` command-line tool's shared logic — verification of
//! every registered variant against the reference, the verification image
//! lists, the benchmark sweep and the GPU test policy. Linking this crate
//! links every algorithm crate, so the registry is complete.
//!
#![doc = include_str!("../../README.md")]

pub mod cases;
pub mod gpu_policy;
pub mod sweep;
pub mod verify;

#[cfg(test)]
mod test_support;

// Each algorithm crate registers itself through `inventory`; naming it here
// makes every binary that links `ccl_bench` link it, registrations included.
use ccl_cpu as _;
use ccl_cuda_ha4 as _;
use ccl_cuda_npp as _;

/// Makes sure every algorithm crate is linked.
///
/// A binary or test that uses nothing else of `ccl_bench` but wants the full
/// registry calls this once: referring to `ccl_bench` is what makes the
/// linker keep the algorithm crates' registrations.
pub fn link_all() {}
