//! The smallest complete CUDA variant, as `docs/design.md` shows it: its
//! kernels (`example/union_find.cu`), one impl and a registration. It builds
//! a union-find forest; the canonical labels come from the shared finish
//! (`Features::number_forest`) and the features from the shared back end, so
//! this test also proves those on the GPU. Registered in this test binary
//! only.

use std::sync::Arc;

use ccl_core::{Connectivity, Labeler, Result};
use ccl_cuda::backend::{DeviceVariant, Run};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut};
use ccl_cuda::runtime::{DevPtr, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, tile_grid};

const KERNELS: KernelSource = KernelSource {
    name: "example_union_find",
    source: include_str!("example/union_find.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Pixel union-find: init and merge build the forest; the shared finish
/// numbers it.
struct UnionFind {
    init: Kernel<(ImageArgs, DevPtr<u32>)>,
    merge: Kernel<(ImageArgs, DevPtr<u32>, i32)>,
}

impl UnionFind {
    fn new(gpu: &Arc<Gpu>, _stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "example_init")?,
            merge: Kernel::load(gpu, &KERNELS, "example_merge")?,
        })
    }
}

impl DeviceVariant for UnionFind {
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let (stream, args) = (run.stream, image.args(run.stream));
        let forest = DevPtr::of_mut(forest, stream);
        // One thread per pixel, on the grid whose rows the kernels walk
        // with CCL_FOR_EACH_ROW: any height, past CUDA's 65535 grid rows.
        let grid = tile_grid(image.width(), image.height(), (128, 1))?;
        let eight = i32::from(run.connectivity == Connectivity::Eight);
        // SAFETY: both kernels index the width * height labels the variant
        // layer checked, and rows of the image within its height.
        unsafe {
            self.init.launch(stream, grid, (args, forest))?;
            self.merge.launch(stream, grid, (args, forest, eight))?;
        }
        run.clock.mark("merge")
    }
}

ccl_cuda::register_variant! {
    name: "example-uf",
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    analyzes: true,
    summary: "pixel union-find, the smallest variant (docs/design.md); tests only",
    priority: 0,
    new: UnionFind::new,
}

#[test]
fn the_example_variant_passes_the_conformance_kit() {
    let example = ccl_core::find("example-uf").unwrap();
    if !ccl_testkit::policy::decide(example).should_run() {
        return;
    }
    let mut kit = ccl_testkit::conformance::Conformance::new(example).unwrap();
    let cases = ccl_testkit::cases::pattern_cases()
        .chain(ccl_testkit::cases::random_cases(60))
        .chain(
            ccl_testkit::cases::real_cases()
                .unwrap()
                .into_iter()
                .map(Ok),
        );
    for case in cases {
        kit.check(&case.unwrap());
    }
    assert!(kit.failures().is_empty(), "{}", kit.failures().join("\n"));
    assert!(kit.checks() > 0);
}

#[test]
fn the_example_variant_labels_images_taller_than_a_grid() {
    let example = ccl_core::find("example-uf").unwrap();
    if !ccl_testkit::policy::decide(example).should_run() {
        return;
    }
    // More rows than a CUDA grid has rows of blocks (65535).
    let image = ccl_testdata::random_image(5, 70_001, 55, 1, 3).unwrap();
    for connectivity in Connectivity::PLANE {
        let labels = example
            .labeler()
            .unwrap()
            .label(&image.view(), connectivity)
            .unwrap();
        let reference = ccl_cpu::UnionFind
            .label(&image.view(), connectivity)
            .unwrap();
        assert!(labels.same_partition(&reference), "{connectivity}");
    }
}

#[test]
fn the_example_kernels_compile_for_sm80_and_sm90() {
    if !ccl_testkit::policy::nvrtc_test_runs(ccl_cuda::runtime::nvrtc_available()) {
        return;
    }
    for arch in [(8, 0), (9, 0)] {
        ccl_cuda::runtime::compile_cubin(&KERNELS, arch).unwrap();
    }
}

#[test]
fn a_kernel_declared_with_other_arguments_is_refused() {
    let example = ccl_core::find("example-uf").unwrap();
    if !ccl_testkit::policy::decide(example).should_run() {
        return;
    }
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    // example_merge takes (CclImage, u32*, int): arguments in another
    // order, or one too many, are refused.
    let error = Kernel::<(DevPtr<u32>, ImageArgs, i32)>::load(&gpu, &KERNELS, "example_merge")
        .err()
        .expect("a mismatched declaration is refused");
    assert!(error.to_string().contains("Rust declaration"), "{error}");
    let error = Kernel::<(ImageArgs, DevPtr<u32>, i32, i32)>::load(&gpu, &KERNELS, "example_merge")
        .err()
        .expect("one argument too many is refused");
    assert!(error.to_string().contains("no parameter 3"), "{error}");
    assert!(Kernel::<(ImageArgs, DevPtr<u32>, i32)>::load(&gpu, &KERNELS, "example_merge").is_ok());
}
