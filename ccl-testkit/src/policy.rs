//! What a test (or `ccl verify`) does with a variant that cannot run here
//! (docs/design.md, "Testing"): skip it with a printed reason, or fail where
//! the environment says the hardware or library must be present, so that a
//! GPU run or a CI run can never pass by skipping. Every test of the
//! workspace decides through this module.
//!
//! - `CCL_REQUIRE_GPU=1` (set on the GPU machine): a CUDA variant whose probe
//!   fails is a failure.
//! - `CI` set (CI installs NVRTC): a test that needs NVRTC and cannot load it
//!   is a failure.

use ccl_core::{Algorithm, Backend};

/// The environment variable that makes a missing GPU a failure.
pub const REQUIRE_GPU_VAR: &str = "CCL_REQUIRE_GPU";

/// What to do with something that may be unavailable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// It is available: run it.
    Run,
    /// It is unavailable and may be: skip it, printing the reason.
    Skip(String),
    /// It is unavailable and must not be: fail with the reason.
    Fail(String),
}

impl Decision {
    /// For tests: `true` to run; `false` to skip, after printing the reason.
    ///
    /// # Panics
    /// On [`Decision::Fail`], so that the calling test fails.
    pub fn should_run(self) -> bool {
        match self {
            Decision::Run => true,
            Decision::Skip(reason) => {
                eprintln!("skipped: {reason}");
                false
            }
            Decision::Fail(reason) => panic!("{reason}"),
        }
    }

    /// The same decision with `subject: ` before its reason.
    fn about(self, subject: &str) -> Self {
        match self {
            Decision::Run => Decision::Run,
            Decision::Skip(reason) => Decision::Skip(format!("{subject}: {reason}")),
            Decision::Fail(reason) => Decision::Fail(format!("{subject}: {reason}")),
        }
    }
}

/// The decision for a variant whose probe gave `probe`, given whether a
/// GPU is required. The reason does not repeat the variant's name.
pub fn variant_decision(
    algorithm: &Algorithm,
    probe: ccl_core::Result<()>,
    require_gpu: bool,
) -> Decision {
    match probe {
        Ok(()) => Decision::Run,
        Err(reason) if require_gpu && algorithm.backend == Backend::Cuda => Decision::Fail(
            format!("{reason} ({REQUIRE_GPU_VAR}=1 requires every CUDA variant to run)"),
        ),
        Err(reason) => Decision::Skip(reason.to_string()),
    }
}

/// The decision for a test that needs NVRTC, given the outcome of loading
/// it and whether this is a CI run.
pub fn nvrtc_decision(load: ccl_core::Result<()>, under_ci: bool) -> Decision {
    match load {
        Ok(()) => Decision::Run,
        Err(reason) if under_ci => Decision::Fail(format!("NVRTC is required under CI: {reason}")),
        Err(reason) => Decision::Skip(format!("NVRTC unavailable: {reason}")),
    }
}

/// For a test that compiles kernels, given whether NVRTC can be loaded
/// (`ccl_cuda::runtime::nvrtc_available()`): `true` to run; `false` to skip, after
/// printing why.
///
/// # Panics
/// Under CI when NVRTC is missing, so that the calling test fails.
pub fn nvrtc_test_runs(nvrtc_available: bool) -> bool {
    let load = if nvrtc_available {
        Ok(())
    } else {
        Err(ccl_core::Error::Unavailable(
            "libnvrtc.so.13 cannot be loaded".into(),
        ))
    };
    nvrtc_decision(load, under_ci()).should_run()
}

/// Whether `CCL_REQUIRE_GPU=1` is set.
pub fn gpu_required() -> bool {
    std::env::var(REQUIRE_GPU_VAR).is_ok_and(|v| v == "1")
}

/// Whether this is a CI run: `CI` set to anything but empty, `0` or `false`.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// The decision for `algorithm` on this machine, in this environment.
pub fn decide(algorithm: &Algorithm) -> Decision {
    variant_decision(algorithm, algorithm.probe(), gpu_required())
}

/// Every registered variant that can run here, for tests: prints the reason
/// for each one skipped. The caller links the algorithm crates (`use ccl as
/// _;` links them all).
///
/// # Panics
/// When a variant that must run cannot (see [`variant_decision`]), so the
/// calling test fails.
pub fn testable_variants() -> Vec<&'static Algorithm> {
    ccl_core::registry()
        .into_iter()
        .filter(|algorithm| decide(algorithm).about(algorithm.name).should_run())
        .collect()
}

/// The backends a test that takes a backend rather than a variant (the
/// strip labeler's) runs on, given the GPU's probe
/// (`ccl_cuda::runtime::probe()`): the CPU, and CUDA where a GPU runs;
/// prints why CUDA is skipped.
///
/// # Panics
/// With `CCL_REQUIRE_GPU=1` when no GPU runs, so the calling test fails.
pub fn testable_backends(cuda_probe: ccl_core::Result<()>) -> Vec<Backend> {
    let cuda = match cuda_probe {
        Ok(()) => Decision::Run,
        Err(reason) if gpu_required() => {
            Decision::Fail(format!("{reason} ({REQUIRE_GPU_VAR}=1 requires a GPU)"))
        }
        Err(reason) => Decision::Skip(reason.to_string()),
    };
    let mut backends = vec![Backend::Cpu];
    if cuda.about("the CUDA backend").should_run() {
        backends.push(Backend::Cuda);
    }
    backends
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::{Connectivity, Error, HostTimedRun};

    fn unavailable() -> ccl_core::Result<()> {
        Err(Error::NoCudaDevice("no driver".into()))
    }

    const GPU_VARIANT: Algorithm = Algorithm {
        name: "gpu-test",
        aliases: &[],
        crate_name: "ccl-testkit",
        backend: Backend::Cuda,
        connectivities: &[Connectivity::Four],
        summary: "a CUDA variant that cannot run",
        priority: 0,
        preferred_for: &[],
        probe: unavailable,
        labeler: None,
        analyzer: None,
        timed: || Ok(Box::new(HostTimedRun::new(ccl_cpu::UnionFind))),
    };

    const CPU_VARIANT: Algorithm = Algorithm {
        backend: Backend::Cpu,
        ..GPU_VARIANT
    };

    #[test]
    fn missing_gpu_skips_unless_required() {
        assert!(matches!(
            variant_decision(&GPU_VARIANT, unavailable(), false),
            Decision::Skip(reason) if reason.contains("no driver")
        ));
        assert!(matches!(
            variant_decision(&GPU_VARIANT, unavailable(), true),
            Decision::Fail(reason) if reason.contains(REQUIRE_GPU_VAR)
        ));
        assert_eq!(variant_decision(&GPU_VARIANT, Ok(()), true), Decision::Run);
    }

    #[test]
    fn requiring_a_gpu_does_not_fail_cpu_variants() {
        assert!(matches!(
            variant_decision(&CPU_VARIANT, unavailable(), true),
            Decision::Skip(_)
        ));
    }

    #[test]
    fn missing_nvrtc_fails_only_under_ci() {
        let missing = || Err(Error::Unavailable("libnvrtc.so not found".into()));
        assert!(matches!(
            nvrtc_decision(missing(), false),
            Decision::Skip(_)
        ));
        assert!(matches!(nvrtc_decision(missing(), true), Decision::Fail(_)));
        assert_eq!(nvrtc_decision(Ok(()), true), Decision::Run);
    }
}
