//! Class maps on the GPU (`classes.cu`): neighbours of the same nonzero
//! value are connected, so each class's components are labeled apart in one
//! labeling ("multilabel", as cc3d's `connected_components` labels), with
//! the class of each component. Maps go to the labeler an algorithm crate
//! registers ([`ClassPlugin`]: `ccl-cuda-flsl`'s runs of one value), where
//! one is linked and takes the map; the others are built tile by tile in
//! shared memory and merged across tiles. The shared back end ([`Features`]) numbers either forest
//! canonically, in raster order of the components' first pixels, exactly as
//! it numbers a binary image's forest.
//!
//! ```no_run
//! use ccl_core::{ClassMap, Connectivity};
//! use ccl_cuda::backend::ClassLabeler;
//! use ccl_cuda::runtime::default_gpu;
//!
//! let values: [u16; 6] = [1, 1, 2,
//!                         0, 2, 2];
//! let gpu = default_gpu()?;
//! let mut labeler = ClassLabeler::new(&gpu, gpu.default_stream())?;
//! let labeled = labeler.label_map(&ClassMap::image(&values, 3, 2)?, Connectivity::Four)?;
//! assert_eq!(labeled.labels.labels(), &[1, 1, 2, 0, 2, 2]);
//! assert_eq!(labeled.classes, vec![1, 2]);
//! # Ok::<(), ccl_core::Error>(())
//! ```

use std::sync::Arc;

use ccl_core::{ClassLabels, ClassMap, ClassValue, Connectivity, Error, LabelVolume, Result};
use cudarc::driver::{CudaSlice, CudaStream, CudaViewMut, DeviceRepr, LaunchConfig};

use super::features::{Features, Numbered, RootIndexArgs, RootLayout};
use crate::runtime::{
    Borrowed, DevPtr, DeviceBuffer, DeviceImage, Gpu, Kernel, KernelSource, StageClock, blocks,
    cuda_error, linear_grid,
};

/// The kernels, compiled once per process and device.
const KERNELS: KernelSource = KernelSource {
    name: "ccl_classes",
    source: include_str!("classes.cu"),
    constants: &[],
};

inventory::submit! { KERNELS }

/// Threads per block: a tile of 32 × 32 pixels or 32 × 8 × 8 voxels each.
const BLOCK: u32 = 256;

/// Image tiles are 32 × 32 pixels (a batch's images tile apart, one per
/// slice); volume tiles 32 × 8 × 8 voxels.
fn tile_rows_and_slices(connectivity: Connectivity) -> (usize, usize) {
    if connectivity.dimensions() == 2 {
        (32, 1)
    } else {
        (8, 8)
    }
}

/// The warps of 32 threads of one block of [`BLOCK`] threads.
const WARPS_PER_BLOCK: usize = BLOCK as usize / 32;

/// `CclClassShape`: a map's geometry (the connectivity is the kernel's).
#[repr(C)]
#[derive(Clone, Copy)]
struct ClassShapeArgs {
    width: u32,
    height: u32,
    depth: u32,
}

// SAFETY: plain old data with C layout, matching CclClassShape.
unsafe impl DeviceRepr for ClassShapeArgs {}

/// The shape of a class map on the device: `depth` slices of `height` rows
/// of `width` values, packed, x fastest. With an image's connectivity the
/// slices are a batch's images, labeled apart; with a volume's, one volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassShape {
    /// Columns.
    pub width: usize,
    /// Rows of a slice (of an image).
    pub height: usize,
    /// Slices (images of a batch; 1 for one image).
    pub depth: usize,
}

impl ClassShape {
    /// Its values: width × height × depth.
    pub fn values(&self) -> usize {
        self.width * self.height * self.depth
    }
}

type LocalKernel = Kernel<(
    DevPtr<u8>,
    ClassShapeArgs,
    DevPtr<u32>,
    DevPtr<u8>,
    DevPtr<u32>,
)>;
type BorderKernel = Kernel<(DevPtr<u8>, ClassShapeArgs, DevPtr<u32>, DevPtr<u32>)>;
type ClassesKernel = Kernel<(RootIndexArgs, u32, u32, DevPtr<u8>, DevPtr<u8>)>;

/// The local and the border kernel of one connectivity (a template
/// argument of both, so that their neighbour offsets are constants).
struct ForestKernels {
    local: LocalKernel,
    border: BorderKernel,
}

/// The kernels of one value size.
struct SizedKernels {
    /// By connectivity: 4, 8, 6, 18, 26.
    forest: [ForestKernels; 5],
    classes: ClassesKernel,
}

impl SizedKernels {
    fn load(gpu: &Gpu, bytes: usize) -> Result<Self> {
        let forest = |connectivity: u32| -> Result<ForestKernels> {
            Ok(ForestKernels {
                local: Kernel::load(
                    gpu,
                    &KERNELS,
                    &format!("ccl_classes_local_c{connectivity}_{bytes}"),
                )?,
                border: Kernel::load(
                    gpu,
                    &KERNELS,
                    &format!("ccl_classes_border_c{connectivity}_{bytes}"),
                )?,
            })
        };
        Ok(Self {
            forest: [forest(4)?, forest(8)?, forest(6)?, forest(18)?, forest(26)?],
            classes: Kernel::load(gpu, &KERNELS, &format!("ccl_component_classes_{bytes}"))?,
        })
    }

    fn forest(&self, connectivity: Connectivity) -> &ForestKernels {
        &self.forest[match connectivity {
            Connectivity::Four => 0,
            Connectivity::Eight => 1,
            Connectivity::Six => 2,
            Connectivity::Eighteen => 3,
            Connectivity::TwentySix => 4,
        }]
    }
}

/// What the last labeling leaves for [`ClassLabeler::write_classes`].
#[derive(Clone, Copy)]
struct Labeled {
    values: u64,
    bytes: usize,
    width: usize,
    rows: usize,
    components: usize,
    /// Whether the plugged-in labeler ([`PluggedClassLabeling`]) labeled
    /// it, whose roots are its own nodes, not pixels.
    by_plugin: bool,
}

/// The labeling of class maps (an image, a batch of images, a volume) that
/// an algorithm crate plugs into [`ClassLabeler`] in place of the tiles,
/// by registering a [`ClassPlugin`]: its forest and last pass, numbered
/// through the labeler's [`Features`]; the checks, the batch's numbering
/// and counts stay the labeler's.
pub trait PluggedClassLabeling: Send {
    /// Labels the class map at `values` (`shape`, values of `bytes` bytes,
    /// compared as integers; zero is background; with several slices and an
    /// image's connectivity a batch, whose first rows have no row above,
    /// with a volume's one volume) into `labels` (a `u32`
    /// per value), its roots flagged and ranked by `numbering` (set up for
    /// the batch by the caller) and its last pass writing each pixel's
    /// label. `None`: it leaves this map to the tiles (it would be slower,
    /// or cannot take its size), having written nothing and left
    /// `numbering` as it was.
    ///
    /// # Safety
    /// `values` must hold the map and `labels` a `u32` per value, device
    /// memory of the labeler's GPU, alive and ready in the stream's order;
    /// `shape` has at least one value and passed `check_volume_size`.
    unsafe fn label(
        &mut self,
        values: u64,
        bytes: usize,
        shape: ClassShape,
        connectivity: Connectivity,
        labels: DevPtr<u32>,
        numbering: &mut Features,
    ) -> Result<Option<Numbered>>;

    /// The class of each of the `components` components of the last
    /// labeling, by rank (the numbering's), into `classes` (a value of the
    /// map's size per component).
    ///
    /// # Safety
    /// `classes` must hold a value per component, and the map labeled last
    /// be alive and unchanged, in the stream's order.
    unsafe fn write_classes(&mut self, components: usize, classes: u64) -> Result<()>;
}

/// A class labeler registered by an algorithm crate
/// (`inventory::submit!`): [`ClassLabeler::new`] takes the one of highest
/// priority, and the tiles label the maps it leaves.
pub struct ClassPlugin {
    /// Which of several registered ones labels the maps.
    pub priority: u32,
    /// Loads it for a GPU and the labeler's stream.
    pub new: fn(&Arc<Gpu>, &Arc<CudaStream>) -> Result<Box<dyn PluggedClassLabeling>>,
}

inventory::collect!(ClassPlugin);

/// Labels class maps in device memory (values of 1, 2, 4 or 8 bytes), on
/// one stream; its buffers are reused across calls.
pub struct ClassLabeler {
    stream: Arc<CudaStream>,
    /// Kernels by value size: 1, 2, 4 and 8 bytes.
    kernels: [SizedKernels; 4],
    numbering: Features,
    forest: DeviceBuffer<u32>,
    /// The foreground bytes of values wider than a byte.
    foreground: DeviceBuffer<u8>,
    /// The registered labeler, if any.
    plugin: Option<Box<dyn PluggedClassLabeling>>,
    last: Option<Labeled>,
}

impl ClassLabeler {
    /// Loads the kernels (compiled once per process and device) for `gpu`;
    /// all work goes on `stream`, a stream of that GPU. Maps go to the
    /// registered [`ClassPlugin`] of highest priority (`ccl-cuda-flsl`'s
    /// runs, where it is linked), and those it leaves (or all, without one)
    /// to the tiles.
    pub fn new(gpu: &Arc<Gpu>, stream: Arc<CudaStream>) -> Result<Self> {
        let plugin = inventory::iter::<ClassPlugin>
            .into_iter()
            .max_by_key(|plugin| plugin.priority);
        let mut labeler = Self::tiles(gpu, stream)?;
        if let Some(plugin) = plugin {
            labeler.plugin = Some((plugin.new)(gpu, &labeler.stream)?);
        }
        Ok(labeler)
    }

    /// [`new`](Self::new) with `plugin` in place of the registered
    /// labeler.
    pub fn with_plugin(
        gpu: &Arc<Gpu>,
        stream: Arc<CudaStream>,
        plugin: Box<dyn PluggedClassLabeling>,
    ) -> Result<Self> {
        let mut labeler = Self::tiles(gpu, stream)?;
        labeler.plugin = Some(plugin);
        Ok(labeler)
    }

    /// [`new`](Self::new) without the registered labeler: the tiles
    /// label every map (the reference the tests hold both to).
    pub fn tiles(gpu: &Arc<Gpu>, stream: Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            kernels: [
                SizedKernels::load(gpu, 1)?,
                SizedKernels::load(gpu, 2)?,
                SizedKernels::load(gpu, 4)?,
                SizedKernels::load(gpu, 8)?,
            ],
            numbering: Features::new(gpu)?,
            forest: DeviceBuffer::new(),
            foreground: DeviceBuffer::new(),
            plugin: None,
            stream,
            last: None,
        })
    }

    /// The stream every call queues its work on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Labels the class map at `values` (`shape`, values of `bytes` bytes,
    /// compared as integers; zero is background) into `labels` (one `u32`
    /// per value): 0 for background, else canonical labels — with a
    /// volume's connectivity, 1..=N over the volume in raster order (z,
    /// then y, then x) of each component's first voxel; with an image's,
    /// 1..=n_i within each slice, an image of a batch, and n_i written into
    /// `counts` (one `u32` per slice on the device), which an image's
    /// connectivity over several slices requires. Returns the components
    /// of all slices (a read-back: the host waits for the ranking that
    /// counts, not for the passes after it), whose
    /// classes [`write_classes`](Self::write_classes) writes next.
    ///
    /// # Safety
    /// `values` (and `counts`) must be device memory of this labeler's GPU
    /// holding the map's values (one `u32` per slice), alive and ready in
    /// the stream's order until the call returns.
    pub unsafe fn label(
        &mut self,
        values: u64,
        bytes: usize,
        shape: ClassShape,
        connectivity: Connectivity,
        labels: &mut CudaViewMut<'_, u32>,
        counts: Option<u64>,
    ) -> Result<usize> {
        self.last = None;
        let batch = connectivity.dimensions() == 2 && shape.depth > 1;
        if batch && counts.is_none() {
            return Err(Error::InvalidArgument(format!(
                "{connectivity}-connectivity labels images: {} slices are a batch, whose counts need a place",
                shape.depth
            )));
        }
        ccl_core::check_volume_size(shape.width, shape.height, shape.depth)?;
        class_value_size_index(bytes)?;
        let voxels = shape.values();
        if labels.len() < voxels {
            return Err(Error::InvalidDimensions(format!(
                "{} labels for a map of {voxels} values",
                labels.len()
            )));
        }
        let stream = self.stream.clone();
        if voxels == 0 {
            if let Some(counts) = counts {
                zero_counts(&stream, counts, shape.depth)?;
            }
            self.last = Some(Labeled {
                values,
                bytes,
                width: shape.width,
                rows: 0,
                components: 0,
                by_plugin: false,
            });
            return Ok(0);
        }
        let rows = shape.height * shape.depth;
        self.numbering.set_label_stats(false);
        if batch {
            self.numbering.set_batch_numbering(Some(shape.height))?;
        }
        let labels = DevPtr::of_mut(labels, &stream);
        // SAFETY: the caller's contract for `values` and `labels`; the
        // shape has values and passed the size check.
        let numbered = unsafe { self.forest_numbered(values, bytes, shape, connectivity, labels) };
        let by_plugin = matches!(numbered, Ok((_, true)));
        // The batch numbering is undone whatever happened.
        let counted = numbered.and_then(|_| match counts {
            Some(counts) if batch => {
                self.numbering
                    .batch_counts(&stream, shape.depth, DevPtr::from_address(counts))
            }
            Some(counts) => {
                // SAFETY: the caller's contract: one `u32` per slice.
                let mut count = unsafe { Borrowed::<u32>::new(&stream, counts, 1) };
                self.numbering
                    .copy_count(&stream, &mut count.0.slice_mut(..1))
            }
            None => Ok(()),
        });
        self.numbering.set_batch_numbering(None)?;
        counted?;
        let components = self.numbering.component_count(&stream)?;
        self.last = Some(Labeled {
            values,
            bytes,
            width: shape.width,
            rows,
            components,
            by_plugin,
        });
        Ok(components)
    }

    /// The map's forest and numbering into `labels` ([`label`](Self::label)
    /// of a map with values): by the registered labeler where it takes the
    /// map (then `true`), else by the tiles.
    ///
    /// # Safety
    /// As [`label`](Self::label)'s.
    unsafe fn forest_numbered(
        &mut self,
        values: u64,
        bytes: usize,
        shape: ClassShape,
        connectivity: Connectivity,
        labels: DevPtr<u32>,
    ) -> Result<(Numbered, bool)> {
        if let Some(plugin) = self.plugin.as_mut() {
            // SAFETY: the caller's contract.
            let numbered = unsafe {
                plugin.label(
                    values,
                    bytes,
                    shape,
                    connectivity,
                    labels,
                    &mut self.numbering,
                )?
            };
            if let Some(numbered) = numbered {
                return Ok((numbered, true));
            }
        }
        // SAFETY: the caller's contract.
        let numbered = unsafe { self.tile_numbered(values, bytes, shape, connectivity, labels)? };
        Ok((numbered, false))
    }

    /// The tiles' forest of the map and its numbering into `labels`
    /// ([`label`](Self::label) of a map with values).
    ///
    /// # Safety
    /// As [`label`](Self::label)'s.
    unsafe fn tile_numbered(
        &mut self,
        values: u64,
        bytes: usize,
        shape: ClassShape,
        connectivity: Connectivity,
        labels: DevPtr<u32>,
    ) -> Result<Numbered> {
        let stream = self.stream.clone();
        let kernels = &self.kernels[class_value_size_index(bytes)?];
        let voxels = shape.values();
        let rows = shape.height * shape.depth;
        let args = ClassShapeArgs {
            width: shape.width as u32,
            height: shape.height as u32,
            depth: shape.depth as u32,
        };
        let (tile_rows, tile_slices) = tile_rows_and_slices(connectivity);
        let tiles = shape.width.div_ceil(32)
            * shape.height.div_ceil(tile_rows)
            * shape.depth.div_ceil(tile_slices);
        let grid = |blocks_wanted: Result<u32>| -> Result<LaunchConfig> {
            Ok(LaunchConfig {
                grid_dim: (blocks_wanted?, 1, 1),
                block_dim: (BLOCK, 1, 1),
                shared_mem_bytes: 0,
            })
        };
        // The local kernel takes a block per tile; the border kernel of
        // images a warp per tile edge (the first row, the first column and,
        // with 8-connectivity, the last), that of volumes a block per tile.
        let local_grid = grid(blocks(tiles, 1))?;
        let border_grid = match connectivity {
            Connectivity::Four => grid(blocks(tiles * 2, WARPS_PER_BLOCK))?,
            Connectivity::Eight => grid(blocks(tiles * 3, WARPS_PER_BLOCK))?,
            _ => local_grid,
        };
        let ForestKernels { local, border } = kernels.forest(connectivity);
        let forest = self.forest.reserve(&stream, voxels)?;
        let mut forest = forest.slice_mut(..voxels);
        let forest_ptr = DevPtr::of_mut(&mut forest, &stream);
        // A byte map is its own foreground image (borrowed for the call); a
        // wider one gets a byte per value from the first kernel.
        let foreground = if bytes == 1 {
            DevPtr::null()
        } else {
            DevPtr::of_mut(self.foreground.reserve(&stream, voxels)?, &stream)
        };
        // SAFETY: the caller's contract: the map's `voxels` bytes, alive
        // until the call returns; the view is dropped before it does.
        let map_bytes =
            (bytes == 1).then(|| unsafe { Borrowed::<u8>::new(&stream, values, voxels) });
        let image_bytes = match &map_bytes {
            Some(borrowed) => borrowed.0.slice(..voxels),
            None => self.foreground.get()?.slice(..voxels),
        };
        let image = DeviceImage::new(image_bytes, shape.width, rows, shape.width)?;
        // The kernels flag the roots themselves: the local kernel the tile
        // roots, the border kernel clearing those it links.
        let flag = self.numbering.begin(&stream, RootLayout::of(&image))?;
        let root_bits = flag.targets().bits;
        // SAFETY: the caller's contract for `values` (`voxels` values of
        // `bytes` bytes); the forest and the foreground hold `voxels`
        // entries, the root bits the layout of the map's rows; the grids
        // cover the tiling of the kernels of `connectivity`.
        unsafe {
            local.launch(
                &stream,
                local_grid,
                (
                    DevPtr::from_address(values),
                    args,
                    forest_ptr,
                    foreground,
                    root_bits,
                ),
            )?;
            border.launch(
                &stream,
                border_grid,
                (DevPtr::from_address(values), args, forest_ptr, root_bits),
            )?;
        }
        flag.flagged_bits()?
            .number_forest(&image, forest_ptr, labels, &mut StageClock::disabled())
    }

    /// After [`label`](Self::label) that found N components (over all
    /// slices): the class of each, the value of its pixels, into `classes`
    /// (N values of the map's size, in the order of the labels: slice after
    /// slice for a batch). Nothing is read back.
    ///
    /// # Safety
    /// `classes` must be device memory of this labeler's GPU holding N
    /// values, and the map labeled last still alive and unchanged, in the
    /// stream's order.
    pub unsafe fn write_classes(&mut self, classes: u64) -> Result<()> {
        let last = self.last.ok_or_else(|| {
            Error::Unavailable("write_classes follows a labeling of a class map".into())
        })?;
        if last.components == 0 {
            return Ok(());
        }
        if last.by_plugin {
            let plugin = self.plugin.as_mut().ok_or_else(ccl_core::not_run)?;
            // SAFETY: the caller's contract; the plugged-in labeler made the
            // last labeling, of `components` components.
            return unsafe { plugin.write_classes(last.components, classes) };
        }
        let index = self.numbering.last_index(&self.stream)?;
        let words = last.rows * last.width.div_ceil(32);
        let words_u32 = u32::try_from(words)
            .map_err(|_| Error::InvalidDimensions("too many root words".into()))?;
        // SAFETY: the caller's contract for both addresses; the root index
        // is the last ranking's, of the map's rows, `words` words.
        unsafe {
            self.kernels[class_value_size_index(last.bytes)?]
                .classes
                .launch(
                    &self.stream,
                    linear_grid(words, BLOCK)?,
                    (
                        index,
                        words_u32,
                        last.width as u32,
                        DevPtr::from_address(last.values),
                        DevPtr::from_address(classes),
                    ),
                )
        }
    }

    /// Labels a host class map: uploads it, labels it with
    /// [`label`](Self::label) and reads the labels and the classes back. An
    /// image's connectivity (4, 8) takes an image (depth 1), a volume's any
    /// depth.
    pub fn label_map<T: ClassValue>(
        &mut self,
        map: &ClassMap<'_, T>,
        connectivity: Connectivity,
    ) -> Result<ClassLabels<T>> {
        if connectivity.dimensions() == 2 && map.depth() > 1 {
            return Err(Error::InvalidArgument(format!(
                "{connectivity}-connectivity labels images, not a volume of {} slices; use 6, 18 or 26",
                map.depth()
            )));
        }
        let shape = ClassShape {
            width: map.width(),
            height: map.height(),
            depth: map.depth(),
        };
        let voxels = shape.values();
        let stream = self.stream.clone();
        if voxels == 0 {
            return Ok(ClassLabels {
                labels: LabelVolume::new(shape.width, shape.height, shape.depth, Vec::new())?,
                classes: Vec::new(),
            });
        }
        let values: CudaSlice<u8> = stream
            .clone_htod(as_bytes(map.values()))
            .map_err(cuda_error)?;
        let mut labels = stream.alloc_zeros::<u32>(voxels).map_err(cuda_error)?;
        let values_address = DevPtr::of(&values, &stream).address();
        // SAFETY: `values` holds the map's values, alive until the end of
        // this function; a volume or one image needs no counts.
        let components = unsafe {
            self.label(
                values_address,
                T::BYTES,
                shape,
                connectivity,
                &mut labels.slice_mut(..),
                None,
            )?
        };
        let mut classes = vec![T::BACKGROUND; components];
        if components > 0 {
            let mut device_classes = stream
                .alloc_zeros::<u8>(components * T::BYTES)
                .map_err(cuda_error)?;
            // SAFETY: `device_classes` holds `components` values; the map
            // is alive and unchanged.
            unsafe { self.write_classes(DevPtr::of_mut(&mut device_classes, &stream).address())? };
            let bytes = stream.clone_dtoh(&device_classes).map_err(cuda_error)?;
            as_bytes_mut(&mut classes).copy_from_slice(&bytes);
        }
        let labels = stream.clone_dtoh(&labels).map_err(cuda_error)?;
        Ok(ClassLabels {
            labels: LabelVolume::new(shape.width, shape.height, shape.depth, labels)?,
            classes,
        })
    }
}

/// The index of the kernels of class values of `bytes` bytes among those
/// of 1, 2, 4 and 8 bytes (the order every class labeler keeps them in);
/// any other size is an error.
pub fn class_value_size_index(bytes: usize) -> Result<usize> {
    match bytes {
        1 => Ok(0),
        2 => Ok(1),
        4 => Ok(2),
        8 => Ok(3),
        other => Err(Error::InvalidArgument(format!(
            "class values of {other} bytes: integers of 1, 2, 4 or 8 bytes"
        ))),
    }
}

fn zero_counts(stream: &Arc<CudaStream>, counts: u64, slices: usize) -> Result<()> {
    if slices == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract: one `u32` per slice.
    let mut borrowed = unsafe { Borrowed::<u32>::new(stream, counts, slices) };
    stream
        .memset_zeros(&mut borrowed.0.slice_mut(..slices))
        .map_err(cuda_error)
}

/// The bytes of a slice of class values (plain integers).
fn as_bytes<T: ClassValue>(values: &[T]) -> &[u8] {
    // SAFETY: ClassValue is sealed to integer types: no padding, every byte
    // initialised; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), std::mem::size_of_val(values)) }
}

/// The bytes of a mutable slice of class values.
fn as_bytes_mut<T: ClassValue>(values: &mut [T]) -> &mut [u8] {
    let len = std::mem::size_of_val(values);
    // SAFETY: integers of any bit pattern are valid values, as above.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast(), len) }
}
