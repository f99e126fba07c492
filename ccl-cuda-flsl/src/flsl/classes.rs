//! [`FlslClasses`]: FLSL's runs over class maps (`flsl/classes.cu`),
//! plugged into `ccl_cuda::backend::ClassLabeler` for images, batches and
//! volumes.
//!
//! The map becomes two bit planes (its nonzero values, and where each run
//! of one value starts), which FLSL's run walk and pixel pass read in place
//! of a binary image's bits; the unions compare the values of the runs that
//! touch. A class map's image has as many runs as its class borders make,
//! so its forest is over runs, not pixels, as a binary image's is. A map
//! whose runs are nearly as many as its values (a value drawn per pixel) is
//! left to the tiles ([`FlslClasses::DEFAULT_RUN_SHARE`]).

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{
    BitImageArgs, ClassPlugin, ClassShape, Features, Numbered, PluggedClassLabeling, RootIndexArgs,
    class_value_size_index,
};
use ccl_cuda::cudarc::driver::{CudaStream, LaunchConfig};
use ccl_cuda::inventory;
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, Gpu, Kernel, StageClock, blocks, copy_device_bytes, cuda_error,
    linear_grid, warp_grid,
};

use super::{
    Bands, CLASS_RUN_WARPS, Flsl, Geometry, KERNELS, PAIRED_ROW_PIXELS, Reaches, RunTableArgs,
    Voting, WORD_WARPS, pixel_grid, run_grid,
};

/// Threads per block of the packing kernel (a thread per word).
const WORD_BLOCK: u32 = 256;

/// The packing kernel's arguments: the map, its width, words per row and
/// in all, the two planes and the run count.
type PackKernel = Kernel<(
    DevPtr<u8>,
    u32,
    u32,
    u32,
    DevPtr<u32>,
    DevPtr<u32>,
    DevPtr<u32>,
)>;

/// A batch's band kernels' arguments: the table, the map and its width,
/// and the images' bands.
type BandKernel = Kernel<(RunTableArgs, DevPtr<u8>, u32, Bands)>;

/// A volume's joins' arguments: the planes, the table, the map and its
/// width, the slices' bands, and the reaches into the slice before.
type VolumeKernel = Kernel<(
    BitImageArgs,
    BitImageArgs,
    RunTableArgs,
    DevPtr<u8>,
    u32,
    Bands,
    i32,
    i32,
)>;

/// The kernels of one value size (1, 2, 4 or 8 bytes).
struct SizedKernels {
    pack: PackKernel,
    /// 4- and 8-connectivity.
    unions: [Kernel<(RunTableArgs, DevPtr<u8>, u32)>; 2],
    /// A batch's unions within bands, then of each band's first row with
    /// the band above; 4- and 8-connectivity.
    band_unions: [BandKernel; 2],
    band_joins: [BandKernel; 2],
    /// A volume's joins of its bands' first rows and of its slices, after
    /// the band unions; in-plane 4- (6) and 8-connectivity (18, 26).
    volume_joins: [VolumeKernel; 2],
    /// The runs' labels and the components' classes.
    number: Kernel<(RunTableArgs, RootIndexArgs, u32, DevPtr<u8>, DevPtr<u8>)>,
}

impl SizedKernels {
    fn load(gpu: &Gpu, bytes: usize) -> Result<Self> {
        let name = |kernel: &str| format!("{kernel}_{bytes}");
        Ok(Self {
            pack: Kernel::load(gpu, &KERNELS, &name("flsl_pack_classes"))?,
            unions: [
                Kernel::load(gpu, &KERNELS, &name("flsl_class_unions_c4"))?,
                Kernel::load(gpu, &KERNELS, &name("flsl_class_unions_c8"))?,
            ],
            band_unions: [
                Kernel::load(gpu, &KERNELS, &name("flsl_class_band_unions_c4"))?,
                Kernel::load(gpu, &KERNELS, &name("flsl_class_band_unions_c8"))?,
            ],
            band_joins: [
                Kernel::load(gpu, &KERNELS, &name("flsl_class_band_joins_c4"))?,
                Kernel::load(gpu, &KERNELS, &name("flsl_class_band_joins_c8"))?,
            ],
            volume_joins: [
                Kernel::load(gpu, &KERNELS, &name("flsl_class_volume_joins_c4"))?,
                Kernel::load(gpu, &KERNELS, &name("flsl_class_volume_joins_c8"))?,
            ],
            number: Kernel::load(gpu, &KERNELS, &name("flsl_number_class_runs"))?,
        })
    }
}

/// The run walk's arguments: the planes, the table and the rows of an image
/// of a batch (0: one image).
type RunKernel = Kernel<(BitImageArgs, BitImageArgs, RunTableArgs, u32)>;

/// What the last labeling leaves for the classes: the size of their
/// values (in [`FlslClasses::classes`], by rank).
#[derive(Clone, Copy)]
struct Labeled {
    bytes: usize,
}

/// FLSL over class maps: the planes, runs, unions of equal values (a
/// volume's slices as a batch's images, then each with the slice before),
/// then FLSL's root flags, numbering and pixel pass.
pub struct FlslClasses {
    stream: Arc<CudaStream>,
    /// The run table and the shared kernels (root flags, run numbers).
    flsl: Flsl,
    /// By connectivity (4, 8), then whether rows go two a warp.
    runs: [[RunKernel; 2]; 2],
    label_pixels: Kernel<(BitImageArgs, BitImageArgs, RunTableArgs, DevPtr<u32>)>,
    /// By value size: 1, 2, 4, 8 bytes.
    sized: [SizedKernels; 4],
    /// The foreground and the run starts.
    planes: [DeviceBuffer<u32>; 2],
    /// The class of each component of the last labeling by rank, written
    /// with the runs' labels (a value per run at most: a component has one
    /// run or more); [`write_classes`](PluggedClassLabeling::write_classes)
    /// copies them out.
    classes: DeviceBuffer<u8>,
    run_count: DeviceBuffer<u32>,
    /// The most runs per value taken: of a volume in 6-connectivity, and
    /// of any other map.
    six_connected_run_share: f64,
    run_share: f64,
    last: Option<Labeled>,
}

impl FlslClasses {
    /// The most runs per value of a map that this labeler takes; maps of
    /// more are left to the tiles. On 8192² maps of 4 classes with a value
    /// drawn per pixel (H200, `bench/2026-11-28-h200-class-runs`), the runs
    /// were faster at 30 % foreground (0.28 runs per value), level at 60 %
    /// (0.51) and slower at 90 % (0.70). On 512³ volumes of such maps
    /// (`bench/2026-11-29-h200-class-volume-runs`) they were level or
    /// faster up to 0.51 in 18- and 26-connectivity, and at 0.70 took 1.09×
    /// the tiles' time in 18 and 0.87× in 26.
    pub const DEFAULT_RUN_SHARE: f64 = 0.6;

    /// The most runs per value of a volume in 6-connectivity that this
    /// labeler takes. There the tiles' forest compares a voxel with three
    /// earlier neighbours, not thirteen: on 512³ maps of 4 classes with a
    /// value drawn per voxel (H200, `bench/2026-11-29-h200-class-volume-runs`),
    /// the runs were faster at 30 % foreground (0.28 runs per value), level
    /// at 40 % (0.36) and slower from 50 % (0.44), where in 18- and
    /// 26-connectivity they were level or faster up to 60 % (0.51).
    pub const SIX_CONNECTED_RUN_SHARE: f64 = 0.35;

    /// Loads the kernels (FLSL's module, compiled once per process and
    /// device) for `gpu`; all work goes on `stream`. Maps of more than
    /// [`DEFAULT_RUN_SHARE`](Self::DEFAULT_RUN_SHARE) runs per value
    /// ([`SIX_CONNECTED_RUN_SHARE`](Self::SIX_CONNECTED_RUN_SHARE) of a
    /// volume in 6-connectivity) are left to the tiles.
    pub fn new(gpu: &Arc<Gpu>, stream: Arc<CudaStream>) -> Result<Self> {
        let mut labeler = Self::with_run_share(gpu, stream, Self::DEFAULT_RUN_SHARE)?;
        labeler.six_connected_run_share = Self::SIX_CONNECTED_RUN_SHARE;
        Ok(labeler)
    }

    /// [`new`](Self::new), taking maps of up to `run_share` runs per value,
    /// in every connectivity (1 or more: every map whose run slots have
    /// 32-bit indices).
    pub fn with_run_share(gpu: &Arc<Gpu>, stream: Arc<CudaStream>, run_share: f64) -> Result<Self> {
        let run_kernel = |name: &str| -> Result<RunKernel> { Kernel::load(gpu, &KERNELS, name) };
        Ok(Self {
            flsl: Flsl::new(gpu, Voting::ConflictDetection)?,
            runs: [
                [
                    run_kernel("flsl_class_runs_c4")?,
                    run_kernel("flsl_class_runs_c4_pairs")?,
                ],
                [
                    run_kernel("flsl_class_runs_c8")?,
                    run_kernel("flsl_class_runs_c8_pairs")?,
                ],
            ],
            label_pixels: Kernel::load(gpu, &KERNELS, "flsl_class_label_pixels")?,
            sized: [
                SizedKernels::load(gpu, 1)?,
                SizedKernels::load(gpu, 2)?,
                SizedKernels::load(gpu, 4)?,
                SizedKernels::load(gpu, 8)?,
            ],
            planes: Default::default(),
            classes: DeviceBuffer::new(),
            run_count: DeviceBuffer::new(),
            six_connected_run_share: run_share,
            run_share,
            stream,
            last: None,
        })
    }

    /// The planes of the map at `values` (`width` × `rows` values of
    /// `bytes` bytes) and its runs (a read-back: the host waits for the
    /// stream).
    fn pack(
        &mut self,
        values: u64,
        bytes: usize,
        width: usize,
        rows: usize,
    ) -> Result<(BitImageArgs, BitImageArgs, usize)> {
        let stream = self.stream.clone();
        let words_per_row = width.div_ceil(32);
        let words = words_per_row * rows;
        let words_u32 = u32::try_from(words).map_err(|_| {
            ccl_core::Error::InvalidDimensions(format!(
                "a {width}x{rows} class map has too many bit words for 32-bit indices"
            ))
        })?;
        let mut planes = [DevPtr::null(); 2];
        for (plane, buffer) in planes.iter_mut().zip(&mut self.planes) {
            *plane = DevPtr::of_mut(buffer.reserve(&stream, words)?, &stream);
        }
        let count = self.run_count.reserve(&stream, 1)?;
        stream.memset_zeros(count).map_err(cuda_error)?;
        let run_count = DevPtr::of_mut(count, &stream);
        let [foreground, run_starts] = planes;
        // SAFETY: the caller's contract: the map holds width × rows values of
        // `bytes` bytes; each plane holds `words` words, a thread's each.
        unsafe {
            self.sized[class_value_size_index(bytes)?].pack.launch(
                &stream,
                linear_grid(words, WORD_BLOCK)?,
                (
                    DevPtr::from_address(values),
                    width as u32,
                    words_per_row as u32,
                    words_u32,
                    foreground,
                    run_starts,
                    run_count,
                ),
            )
        }?;
        let runs = stream
            .clone_dtoh(&self.run_count.get()?.slice(..1))
            .map_err(cuda_error)?[0] as usize;
        let plane = |bits| BitImageArgs {
            bits,
            words_per_row: words_per_row as u32,
            width: width as u32,
            height: rows as u32,
        };
        Ok((plane(foreground), plane(run_starts), runs))
    }
}

impl PluggedClassLabeling for FlslClasses {
    unsafe fn label(
        &mut self,
        values: u64,
        bytes: usize,
        shape: ClassShape,
        connectivity: Connectivity,
        labels: DevPtr<u32>,
        numbering: &mut Features,
    ) -> Result<Option<Numbered>> {
        self.last = None;
        // A volume's slices are labeled as images of its in-plane
        // connectivity (6: 4; 18, 26: 8), then joined slice to slice.
        let volume = connectivity.dimensions() == 3;
        let eight = usize::from(if volume {
            connectivity != Connectivity::Six
        } else {
            connectivity.image_diagonals()?
        });
        let rows = shape.height * shape.depth;
        // Too many slots for 32-bit indices: the tiles take the map.
        let Ok(geometry) = Geometry::of_classes(shape.width, rows) else {
            return Ok(None);
        };
        // A batch's images, a volume's slices: each first row has no row
        // above in the run walk.
        let slice_height = if shape.depth > 1 {
            u32::try_from(shape.height).map_err(|_| {
                ccl_core::Error::InvalidDimensions("images taller than 2^32 rows".into())
            })?
        } else {
            0
        };
        let (bits, run_starts, runs) = self.pack(values, bytes, shape.width, rows)?;
        let run_share = if connectivity == Connectivity::Six {
            self.six_connected_run_share
        } else {
            self.run_share
        };
        if runs as f64 > run_share * shape.values() as f64 {
            return Ok(None);
        }
        let stream = self.stream.clone();
        let table = self.flsl.table.args(&stream, geometry)?;
        let pairs = geometry.width <= PAIRED_ROW_PIXELS;
        let rows_per_block = CLASS_RUN_WARPS as usize * if pairs { 2 } else { 1 };
        let grid = LaunchConfig {
            grid_dim: (blocks(geometry.height, rows_per_block)?, 1, 1),
            block_dim: (32, CLASS_RUN_WARPS, 1),
            shared_mem_bytes: 0,
        };
        let run_rows = run_grid(geometry)?;
        // SAFETY: the table holds `capacity` (= width) slots per row, a
        // count and `row_words` words per row; the run kernel reads the
        // planes' words only (0 outside them).
        unsafe {
            self.runs[eight][usize::from(pairs)].launch(
                &stream,
                grid,
                (bits, run_starts, table, slice_height),
            )?;
        }
        let sized = &self.sized[class_value_size_index(bytes)?];
        let map = DevPtr::from_address(values);
        let width = shape.width as u32;
        if slice_height == 0 {
            // SAFETY: a block per group of rows walks the runs their counts
            // give and the runs above they name, slots of the table, and
            // reads the map's values at those runs' first columns.
            unsafe { sized.unions[eight].launch(&stream, run_rows, (table, map, width)) }?;
        } else {
            // A batch or a volume: in bands, as FLSL joins a binary batch's
            // rows (`Flsl::join_bands`). The band kernels' warps walk the
            // runs and values of their bands' rows alone, as above.
            let bands = Bands::of(shape.depth, slice_height)?;
            let reaches = Reaches::of(connectivity);
            // SAFETY: as the unions above, each warp within its band's rows
            // (the joins: its row and the row above; a volume's also the
            // three rows about it in the slice before, whose runs it finds
            // from the start plane's words and `word_runs`).
            unsafe {
                sized.band_unions[eight].launch(
                    &stream,
                    warp_grid(bands.count as usize, WORD_WARPS)?,
                    (table, map, width, bands),
                )?;
                if volume {
                    sized.volume_joins[eight].launch(
                        &stream,
                        warp_grid(rows, WORD_WARPS)?,
                        (
                            bits,
                            run_starts,
                            table,
                            map,
                            width,
                            bands,
                            reaches.face,
                            reaches.edge,
                        ),
                    )?;
                } else if bands.joined > 0 {
                    sized.band_joins[eight].launch(
                        &stream,
                        warp_grid(bands.joined as usize, WORD_WARPS)?,
                        (table, map, width, bands),
                    )?;
                }
            }
        }
        let classes = DevPtr::of_mut(self.classes.reserve(&stream, runs.max(1) * bytes)?, &stream);
        let numbered = self
            .flsl
            .flag_roots(&stream, geometry, table, numbering)?
            .number_with(&mut StageClock::disabled(), |index, stream| {
                // SAFETY: a block per group of rows walks the runs their
                // counts give; the root index covers every slot, and a
                // component's rank is below the runs, whose values
                // `classes` holds. The pixel pass writes the width × rows
                // labels (the caller's contract) from the labels of the
                // runs of its row.
                unsafe {
                    sized
                        .number
                        .launch(stream, run_rows, (table, index, width, map, classes))?;
                    self.label_pixels.launch(
                        stream,
                        pixel_grid(geometry)?,
                        (bits, run_starts, table, labels),
                    )
                }
            })?;
        self.last = Some(Labeled { bytes });
        Ok(Some(numbered))
    }

    unsafe fn write_classes(&mut self, components: usize, classes: u64) -> Result<()> {
        let last = self.last.ok_or_else(ccl_core::not_run)?;
        let bytes = components * last.bytes;
        if bytes > self.classes.capacity() {
            return Err(ccl_core::Error::InvalidArgument(format!(
                "{components} classes asked of a labeling of fewer runs"
            )));
        }
        let source = DevPtr::of(self.classes.get()?, &self.stream).address();
        // SAFETY: the caller's contract for `classes` (a value per
        // component); the labeling wrote the first `components` values of
        // the buffer, in the stream's order.
        unsafe { copy_device_bytes(&self.stream, classes, source, bytes) }
    }
}

inventory::submit! {
    ClassPlugin {
        priority: 1,
        new: |gpu, stream| {
            FlslClasses::new(gpu, stream.clone())
                .map(|labeler| Box::new(labeler) as Box<dyn PluggedClassLabeling>)
        },
    }
}
