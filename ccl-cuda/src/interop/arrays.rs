//! Labeling a caller's device arrays (`arrays.cu`): a CuPy array or a
//! PyTorch tensor of any element type and strides is labeled where it lies
//! (the variant writes canonical labels into the caller's memory), and the
//! features are written in OpenCV's layout there too. Nothing goes through
//! the host but the component count.
//!
//! An [`ArrayLabeler`] owns a variant made for its own stream
//! ([`variant_on`](crate::backend::variant_on)) and the scratch buffers of the
//! conversions; a caller orders it after and before its own stream's work
//! with [`ArrayLabeler::after`] and [`ArrayLabeler::before`].

use std::sync::Arc;

use ccl_core::opencv::NO_BACKGROUND_STATS;
use ccl_core::{ComponentStats, Connectivity, Error, Filter, Result};
use cudarc::driver::{CudaStream, CudaView, DeviceRepr};

use crate::backend::{
    ClassLabeler, ClassShape, DeviceFilter, DeviceStats, DeviceVolumeStats, DynVariant,
    FilterOutput, LabelShape, Slices,
};
use crate::runtime::{
    Borrowed, DevPtr, DeviceBuffer, DeviceImage, Kernel, KernelSource, StageClock, cuda_error,
    linear_grid, tile_grid,
};

const KERNELS: KernelSource = KernelSource {
    name: "ccl_arrays",
    source: include_str!("arrays.cu"),
    // OpenCV's row 0 without background, from its one definition; the
    // kernel casts the u32 bits back to int (-1 stays -1).
    constants: &[
        ("NO_BACKGROUND_LEFT", NO_BACKGROUND_STATS[0] as u32),
        ("NO_BACKGROUND_TOP", NO_BACKGROUND_STATS[1] as u32),
        ("NO_BACKGROUND_WIDTH", NO_BACKGROUND_STATS[2] as u32),
        ("NO_BACKGROUND_HEIGHT", NO_BACKGROUND_STATS[3] as u32),
        ("NO_BACKGROUND_AREA", NO_BACKGROUND_STATS[4] as u32),
    ],
};

inventory::submit! { KERNELS }

/// How an element of a caller's array is read: its size, and whether it is
/// a float (whose sign bit alone does not make it foreground: `-0.0 == 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// A bool or an integer of this many bytes (1, 2, 4 or 8).
    Integer(usize),
    /// An IEEE float of this many bytes (2, 4 or 8).
    Float(usize),
}

impl Element {
    fn bytes(self) -> usize {
        match self {
            Element::Integer(bytes) | Element::Float(bytes) => bytes,
        }
    }

    /// The bits that make an element foreground when any of them is set.
    fn value_mask(self) -> Result<u64> {
        let all = |bytes: usize| u64::MAX >> (64 - 8 * bytes);
        match self {
            Element::Integer(bytes @ (1 | 2 | 4 | 8)) => Ok(all(bytes)),
            Element::Float(bytes @ (2 | 4 | 8)) => Ok(all(bytes) >> 1),
            other => Err(Error::InvalidArgument(format!(
                "unsupported element type {other:?}: integers of 1, 2, 4 or 8 bytes and floats of 2, 4 or 8"
            ))),
        }
    }
}

/// A caller's two-dimensional device array: element (y, x) lies at byte
/// `address + y * row_stride + x * column_stride`; nonzero is foreground.
#[derive(Clone, Copy, Debug)]
pub struct DeviceArray {
    /// Device address of element (0, 0).
    pub address: u64,
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Bytes from a row to the next (may be negative).
    pub row_stride: isize,
    /// Bytes from a column to the next (may be negative).
    pub column_stride: isize,
    /// The element type.
    pub element: Element,
}

impl DeviceArray {
    /// Whether the kernels can read it as it is: bytes, one per column, rows
    /// at least a row apart.
    fn is_byte_image(&self) -> bool {
        self.element == Element::Integer(1)
            && self.column_stride == 1
            && self.row_stride >= self.width as isize
    }
}

struct Kernels {
    binarize: Kernel<(DevPtr<u8>, i64, i64, i32, i32, u32, u64, DevPtr<u8>)>,
    opencv_stats: Kernel<(
        DevPtr<DeviceStats>,
        u32,
        DevPtr<DeviceStats>,
        DevPtr<i32>,
        DevPtr<f64>,
    )>,
    feature_columns: Kernel<ColumnArgs<DeviceStats>>,
    volume_feature_columns: Kernel<ColumnArgs<DeviceVolumeStats>>,
}

/// What the last call left for the stats writers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    None,
    /// Labels with their features (shared back end) and the background's:
    /// for [`ArrayLabeler::write_opencv_stats`].
    LabeledWithStats,
    /// The variant's own analysis: for [`ArrayLabeler::write_features`].
    Analyzed,
    /// A volume's analysis: for [`ArrayLabeler::write_volume_features`].
    AnalyzedVolume,
}

/// Labels and analyzes caller-owned device arrays with one CUDA variant.
///
/// Each call works on the variant's stream; results are written into device
/// memory the caller passes by address, so the calls are `unsafe`: the
/// addresses must be device memory of the variant's GPU, large enough, and
/// ready in the stream's order (see [`after`](Self::after)).
pub struct ArrayLabeler {
    variant: Box<dyn DynVariant>,
    kernels: Kernels,
    /// The input as bytes, where it is not bytes already.
    packed: DeviceBuffer<u8>,
    /// The background's features.
    background: DeviceBuffer<DeviceStats>,
    /// The clean-up, loaded on its first use.
    filter: Option<DeviceFilter>,
    /// The labeling of class maps, loaded on its first use.
    classes: Option<ClassLabeler>,
    /// The component count of one image or volume, for the clean-up.
    count: DeviceBuffer<u32>,
    last: Last,
}

/// Where a clean-up finds the component counts of the labels it filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counts {
    /// One image or volume of this many components (known on the host).
    One(usize),
    /// A batch: the caller's device array of one `u32` per image, at this
    /// address, rewritten with the kept counts where labels are written.
    Device(u64),
}

impl ArrayLabeler {
    /// Loads the kernels (compiled once per process and device) for
    /// `variant`'s GPU.
    pub fn new(variant: Box<dyn DynVariant>) -> Result<Self> {
        let gpu = variant.gpu().clone();
        Ok(Self {
            kernels: Kernels {
                binarize: Kernel::load(&gpu, &KERNELS, "ccl_binarize")?,
                opencv_stats: Kernel::load(&gpu, &KERNELS, "ccl_opencv_stats")?,
                feature_columns: Kernel::load(&gpu, &KERNELS, "ccl_feature_columns")?,
                volume_feature_columns: Kernel::load(&gpu, &KERNELS, "ccl_volume_feature_columns")?,
            },
            variant,
            packed: DeviceBuffer::new(),
            background: DeviceBuffer::new(),
            filter: None,
            classes: None,
            count: DeviceBuffer::new(),
            last: Last::None,
        })
    }

    /// The variant.
    pub fn variant(&self) -> &dyn DynVariant {
        self.variant.as_ref()
    }

    /// Makes the following calls wait for the work queued on `caller` so
    /// far (without blocking the host).
    pub fn after(&self, caller: &CudaStream) -> Result<()> {
        self.variant.stream().join(caller).map_err(cuda_error)
    }

    /// Makes work queued on `caller` from now on wait for these calls.
    pub fn before(&self, caller: &CudaStream) -> Result<()> {
        caller.join(self.variant.stream()).map_err(cuda_error)
    }

    /// Labels `array` into `labels` (`height × width` `u32`, packed,
    /// row-major): 0 for background, 1..=N in raster order of each
    /// component's first pixel. With `with_stats`, also gathers what
    /// [`write_opencv_stats`](Self::write_opencv_stats) writes next.
    /// Returns N (a read-back of the count: the host waits for the ranking
    /// that counts, not for the passes after it).
    ///
    /// # Safety
    /// `array` and `labels` must address device memory of the variant's
    /// GPU, as large as they say, alive and ready in the stream's order
    /// until the call returns.
    pub unsafe fn label(
        &mut self,
        array: &DeviceArray,
        labels: u64,
        connectivity: Connectivity,
        with_stats: bool,
    ) -> Result<usize> {
        self.last = Last::None;
        let stream = self.variant.stream().clone();
        let pixels = array.width * array.height;
        // SAFETY: the caller's contract.
        let source = unsafe { self.source(array)? };
        let image = source.image(&self.packed)?;
        // SAFETY: the caller's contract: `labels` holds the image's pixels.
        let mut labels = unsafe { Borrowed::<u32>::new(&stream, labels, pixels) };
        let mut labels = labels.0.slice_mut(..pixels);
        let mut clock = StageClock::disabled();
        if with_stats {
            let background = self.background.reserve(&stream, 1)?;
            stream
                .memset_zeros(&mut background.slice_mut(..1))
                .map_err(cuda_error)?;
            let background = DevPtr::of_mut(background, &stream);
            self.variant.label_device_with_stats(
                &image,
                &mut labels,
                connectivity,
                Some(background),
                &mut clock,
            )?;
            self.last = Last::LabeledWithStats;
        } else {
            self.variant
                .label_device(&image, &mut labels, connectivity, &mut clock)?;
        }
        self.variant.component_count()
    }

    /// Labels `array` into `labels` as [`label`](Self::label) does, keeping
    /// only the components `filter` keeps, numbered 1..=k in raster order
    /// of their first pixels (every other pixel 0): what
    /// [`filter`](Self::filter) leaves after [`label`](Self::label), written
    /// once where the variant's last pass filters
    /// ([`CudaVariant::label_device_filtered`](crate::backend::CudaVariant::label_device_filtered)).
    /// With `mask` (one byte per pixel), writes 1 there where a pixel is
    /// kept, 0 elsewhere, and `labels` is scratch. Returns k (a read-back).
    ///
    /// # Safety
    /// As [`label`](Self::label); `mask` holds the image's pixels.
    pub unsafe fn label_filtered(
        &mut self,
        array: &DeviceArray,
        labels: u64,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<u64>,
    ) -> Result<usize> {
        self.last = Last::None;
        let stream = self.variant.stream().clone();
        let pixels = array.width * array.height;
        // SAFETY: the caller's contract.
        let source = unsafe { self.source(array)? };
        let image = source.image(&self.packed)?;
        // SAFETY: the caller's contract: `labels` and `mask` hold the
        // image's pixels.
        let (mut labels, mut mask) = unsafe {
            (
                Borrowed::<u32>::new(&stream, labels, pixels),
                mask.map(|address| Borrowed::<u8>::new(&stream, address, pixels)),
            )
        };
        let mut labels = labels.0.slice_mut(..pixels);
        let mut mask_view = mask.as_mut().map(|m| m.0.slice_mut(..pixels));
        let mut clock = StageClock::disabled();
        self.variant.label_device_filtered(
            &image,
            &mut labels,
            connectivity,
            filter,
            mask_view.as_mut(),
            &mut clock,
        )
    }

    /// Cleans up canonical labels in the caller's memory (`labels`, one
    /// `u32` per pixel of `shape`, as the calls above leave them) by
    /// `filter`: with `mask` (one byte per pixel), writes 1 where a pixel's
    /// component is kept and leaves the labels; else renumbers what is kept
    /// 1..=k per image in place. Returns the count of [`Counts::One`]
    /// afterwards (a read-back: the kept count where labels are written),
    /// `None` for a batch, whose kept counts are written over its counts on
    /// the device where labels are (a mask leaves the counts).
    ///
    /// # Safety
    /// As [`label`](Self::label): `labels` (and `mask`) hold `shape`'s
    /// pixels, a [`Counts::Device`] address one `u32` per image.
    pub unsafe fn filter(
        &mut self,
        labels: u64,
        counts: Counts,
        shape: LabelShape,
        filter: &Filter,
        mask: Option<u64>,
    ) -> Result<Option<usize>> {
        let stream = self.variant.stream().clone();
        let pixels = shape.pixels();
        if self.filter.is_none() {
            self.filter = Some(DeviceFilter::new(self.variant.gpu())?);
        }
        let device_filter = self.filter.as_mut().expect("loaded above");
        // SAFETY: the caller's contract: `labels` and `mask` hold the
        // pixels, a device count array one `u32` per image.
        let (mut labels, mut mask) = unsafe {
            (
                Borrowed::<u32>::new(&stream, labels, pixels),
                mask.map(|address| Borrowed::<u8>::new(&stream, address, pixels)),
            )
        };
        let mut labels = labels.0.slice_mut(..pixels);
        let mut mask_view = mask.as_mut().map(|m| m.0.slice_mut(..pixels));
        let output = match mask_view.as_mut() {
            Some(view) => FilterOutput::Mask(view),
            None => FilterOutput::Labels,
        };
        match counts {
            Counts::One(count) => {
                let count = u32::try_from(count).map_err(|_| {
                    Error::InvalidArgument(format!("{count} components exceed 32-bit labels"))
                })?;
                let buffer = self.count.reserve(&stream, 1)?;
                let mut count_view = buffer.slice_mut(..1);
                device_filter.run(
                    &stream,
                    &mut labels,
                    &mut count_view,
                    Some(count),
                    shape,
                    filter,
                    output,
                    false,
                )?;
                let kept = stream.clone_dtoh(&buffer.slice(..1)).map_err(cuda_error)?[0];
                Ok(Some(kept as usize))
            }
            Counts::Device(address) => {
                // SAFETY: the caller's contract: one `u32` per image.
                let mut counts = unsafe { Borrowed::<u32>::new(&stream, address, shape.images) };
                let mut counts = counts.0.slice_mut(..shape.images);
                device_filter.run(
                    &stream,
                    &mut labels,
                    &mut counts,
                    None,
                    shape,
                    filter,
                    output,
                    false,
                )?;
                Ok(None)
            }
        }
    }

    /// Labels a class map given as `rows` (as [`label_volume`](Self::label_volume):
    /// `slices.depth` slices of `slices.height` rows, packed; integers of
    /// 1, 2, 4 or 8 bytes, compared as they are, zero background): pixels
    /// are connected when they are neighbours of the same value. With a
    /// volume's connectivity the slices are one volume; with an image's
    /// they are a batch's images, numbered apart, whose counts go to
    /// `counts` (one `u32` per image; required for more than one). Returns
    /// the components of all slices (a read-back), whose classes
    /// [`write_classes`](Self::write_classes) writes next.
    ///
    /// # Safety
    /// As [`label`](Self::label); `counts` holds `slices.depth` `u32`.
    pub unsafe fn label_classes(
        &mut self,
        rows: &DeviceArray,
        slices: Slices,
        labels: u64,
        counts: Option<u64>,
        connectivity: Connectivity,
    ) -> Result<usize> {
        self.last = Last::None;
        let bytes = match rows.element {
            Element::Integer(bytes) => bytes,
            Element::Float(_) => {
                return Err(Error::InvalidArgument(
                    "a class map holds integers; floats are not classes (cast the map to an integer type)"
                        .into(),
                ));
            }
        };
        let packed = rows.column_stride == bytes as isize
            && rows.row_stride == (rows.width * bytes) as isize;
        if !packed {
            return Err(Error::InvalidArgument(
                "a class map on the device must be C-contiguous".into(),
            ));
        }
        if slices.height.checked_mul(slices.depth) != Some(rows.height) {
            return Err(Error::InvalidDimensions(format!(
                "{} slices of {} rows are not the {} rows given",
                slices.depth, slices.height, rows.height
            )));
        }
        let stream = self.variant.stream().clone();
        if self.classes.is_none() {
            self.classes = Some(ClassLabeler::new(self.variant.gpu(), stream.clone())?);
        }
        let labeler = self.classes.as_mut().expect("loaded above");
        let voxels = rows.width * rows.height;
        // SAFETY: the caller's contract: `labels` holds the map's values.
        let mut labels = unsafe { Borrowed::<u32>::new(&stream, labels, voxels) };
        let shape = ClassShape {
            width: rows.width,
            height: slices.height,
            depth: slices.depth,
        };
        // SAFETY: the caller's contract for the map and the counts.
        unsafe {
            labeler.label(
                rows.address,
                bytes,
                shape,
                connectivity,
                &mut labels.0.slice_mut(..voxels),
                counts,
            )
        }
    }

    /// After [`label_classes`](Self::label_classes) that found N
    /// components: the class of each into `classes` (N values of the map's
    /// type, in the order of the labels). Nothing is read back.
    ///
    /// # Safety
    /// `classes` holds N values on the variant's GPU; the map labeled last
    /// is alive and unchanged, in the stream's order.
    pub unsafe fn write_classes(&mut self, classes: u64) -> Result<()> {
        let labeler = self
            .classes
            .as_mut()
            .ok_or_else(|| Error::Unavailable("write_classes follows label_classes".into()))?;
        // SAFETY: the caller's contract.
        unsafe { labeler.write_classes(classes) }
    }

    /// Labels a volume given as `rows`, the 2-D array of its rows slice
    /// after slice (a `(depth, height, width)` array whose slices lie one
    /// after the other, seen as `(depth * height, width)`), into `labels`
    /// (one `u32` per voxel, packed): 0 for background, 1..=N in raster
    /// order (z, then y, then x) of each component's first voxel. Returns N
    /// (a read-back: the host waits for the ranking that counts, not for the
    /// passes after it).
    ///
    /// # Safety
    /// As [`label`](Self::label).
    pub unsafe fn label_volume(
        &mut self,
        rows: &DeviceArray,
        slices: Slices,
        labels: u64,
        connectivity: Connectivity,
    ) -> Result<usize> {
        self.last = Last::None;
        let stream = self.variant.stream().clone();
        let voxels = rows.width * rows.height;
        // SAFETY: the caller's contract.
        let source = unsafe { self.source(rows)? };
        let image = source.image(&self.packed)?;
        // SAFETY: the caller's contract: `labels` holds the volume's voxels.
        let mut labels = unsafe { Borrowed::<u32>::new(&stream, labels, voxels) };
        let mut labels = labels.0.slice_mut(..voxels);
        self.variant.label_device_volume(
            &image,
            slices,
            &mut labels,
            connectivity,
            &mut StageClock::disabled(),
        )?;
        self.variant.component_count()
    }

    /// Labels a batch of images of one size given as `rows`, the 2-D array
    /// of their rows image after image (an `(images, height, width)` array
    /// whose images lie one after the other, seen as `(images * height,
    /// width)`), in an image's connectivity: into `labels` (one `u32` per
    /// pixel, packed) each image's canonical labels, 1..=n_i in its own
    /// raster order, and n_i into `counts` (one `u32` per image). With
    /// `filter`, only what it keeps of each image, numbered 1..=k_i, and k_i
    /// into `counts`; with `mask` too (one byte per pixel), 1 there where a
    /// pixel is kept and 0 elsewhere, `labels` then scratch
    /// ([`CudaVariant::label_device_batch_filtered`](crate::backend::CudaVariant::label_device_batch_filtered)).
    /// Nothing is read back but, with a filter, the component total: the
    /// results are ready in the stream's order.
    ///
    /// # Safety
    /// As [`label`](Self::label); `counts` holds `slices.depth` `u32`,
    /// `mask` the batch's pixels.
    #[allow(clippy::too_many_arguments)] // the arrays, their shape and the request, apart
    pub unsafe fn label_batch(
        &mut self,
        rows: &DeviceArray,
        slices: Slices,
        labels: u64,
        counts: u64,
        connectivity: Connectivity,
        filter: Option<&Filter>,
        mask: Option<u64>,
    ) -> Result<()> {
        self.last = Last::None;
        if mask.is_some() && filter.is_none() {
            return Err(Error::InvalidArgument(
                "a mask is the clean-up's: it comes with a filter".into(),
            ));
        }
        let stream = self.variant.stream().clone();
        let pixels = rows.width * rows.height;
        // SAFETY: the caller's contract.
        let source = unsafe { self.source(rows)? };
        let image = source.image(&self.packed)?;
        // SAFETY: the caller's contract: `labels` and `mask` hold the
        // batch's pixels and `counts` a count per image.
        let (mut labels, mut counts, mut mask) = unsafe {
            (
                Borrowed::<u32>::new(&stream, labels, pixels),
                Borrowed::<u32>::new(&stream, counts, slices.depth),
                mask.map(|address| Borrowed::<u8>::new(&stream, address, pixels)),
            )
        };
        let mut labels = labels.0.slice_mut(..pixels);
        let mut counts = counts.0.slice_mut(..slices.depth);
        let mut clock = StageClock::disabled();
        match filter {
            None => self.variant.label_device_batch(
                &image,
                slices,
                &mut labels,
                &mut counts,
                connectivity,
                &mut clock,
            ),
            Some(filter) => self.variant.label_device_batch_filtered(
                &image,
                slices,
                &mut labels,
                &mut counts,
                connectivity,
                filter,
                mask.as_mut().map(|m| m.0.slice_mut(..pixels)).as_mut(),
                &mut clock,
            ),
        }
    }

    /// The features of every image of a batch given as `rows` (as
    /// [`label_batch`](Self::label_batch)), copied to the host: entry `i`
    /// holds image `i`'s components in its raster order. Waits for the
    /// stream.
    ///
    /// # Safety
    /// As [`analyze`](Self::analyze).
    pub unsafe fn analyze_batch(
        &mut self,
        rows: &DeviceArray,
        slices: Slices,
        connectivity: Connectivity,
    ) -> Result<Vec<Vec<ComponentStats>>> {
        self.last = Last::None;
        // SAFETY: the caller's contract.
        let source = unsafe { self.source(rows)? };
        let image = source.image(&self.packed)?;
        self.variant
            .analyze_device_batch(&image, slices, connectivity, &mut StageClock::disabled())
    }

    /// Analyzes a volume given as `rows` (as
    /// [`label_volume`](Self::label_volume)): its features stay on the
    /// device, one per component in raster order of the components' first
    /// voxels, for [`write_volume_features`](Self::write_volume_features).
    /// Returns the number of components (a read-back of the count).
    ///
    /// # Safety
    /// As [`analyze`](Self::analyze).
    pub unsafe fn analyze_volume(
        &mut self,
        rows: &DeviceArray,
        slices: Slices,
        connectivity: Connectivity,
    ) -> Result<usize> {
        self.last = Last::None;
        // SAFETY: the caller's contract.
        let source = unsafe { self.source(rows)? };
        let image = source.image(&self.packed)?;
        self.variant.analyze_device_volume(
            &image,
            slices,
            connectivity,
            &mut StageClock::disabled(),
        )?;
        self.last = Last::AnalyzedVolume;
        Ok(self.variant.device_volume_stats()?.map_or(0, |s| s.len()))
    }

    /// After [`analyze_volume`](Self::analyze_volume) that found N
    /// components: its features into `bounds` (`N × 7` `u32`: area, x_min,
    /// y_min, z_min, x_max, y_max, z_max), `sums` (`N × 3` `u64`: sum_x,
    /// sum_y, sum_z) and `centroids` (`N × 3` `f64`), on the device.
    ///
    /// # Safety
    /// The addresses must be device memory of the variant's GPU of the
    /// sizes above, ready in the stream's order.
    pub unsafe fn write_volume_features(
        &mut self,
        bounds: u64,
        sums: u64,
        centroids: u64,
    ) -> Result<()> {
        if self.last != Last::AnalyzedVolume {
            return Err(Error::Unavailable(
                "write_volume_features follows an analyze_volume call".into(),
            ));
        }
        let stream = self.variant.stream().clone();
        // SAFETY: the caller's contract for the outputs.
        unsafe {
            write_columns(
                &stream,
                &self.kernels.volume_feature_columns,
                self.variant.device_volume_stats()?,
                (bounds, sums, centroids),
            )
        }
    }

    /// After [`label`](Self::label) with stats that found N components:
    /// OpenCV's `connectedComponentsWithStats` output, row 0 the background,
    /// into `stats` (`(N + 1) × 5` `i32`: left, top, width, height, area) and
    /// `centroids` (`(N + 1) × 2` `f64`: x, y).
    ///
    /// # Safety
    /// Both addresses must be device memory of the variant's GPU of the
    /// sizes above, ready in the stream's order.
    pub unsafe fn write_opencv_stats(&mut self, stats: u64, centroids: u64) -> Result<()> {
        if self.last != Last::LabeledWithStats {
            return Err(Error::Unavailable(
                "write_opencv_stats follows a label call with stats".into(),
            ));
        }
        let stream = self.variant.stream().clone();
        let components = self.variant.device_stats()?;
        let count = components.as_ref().map_or(0, |c| c.len());
        let count_u32 = u32::try_from(count).map_err(|_| too_large())?;
        let components = components.map_or(DevPtr::null(), |c| DevPtr::of(&c, &stream));
        let background = DevPtr::of(self.background.get()?, &stream);
        // SAFETY: the caller's contract for the outputs; `components` holds
        // `count` entries and `background` one.
        unsafe {
            self.kernels.opencv_stats.launch(
                &stream,
                linear_grid(count + 1, 256)?,
                (
                    components,
                    count_u32,
                    background,
                    DevPtr::from_address(stats),
                    DevPtr::from_address(centroids),
                ),
            )
        }
    }

    /// Analyzes `array` with the variant's own analysis; returns the number
    /// of components, N, whose features [`write_features`](Self::write_features)
    /// writes next.
    ///
    /// # Safety
    /// `array` must address device memory of the variant's GPU, as large as
    /// it says, alive and ready in the stream's order until the call returns.
    pub unsafe fn analyze(
        &mut self,
        array: &DeviceArray,
        connectivity: Connectivity,
    ) -> Result<usize> {
        self.last = Last::None;
        // SAFETY: the caller's contract.
        let source = unsafe { self.source(array)? };
        let image = source.image(&self.packed)?;
        self.variant
            .analyze_device(&image, connectivity, &mut StageClock::disabled())?;
        self.last = Last::Analyzed;
        Ok(self.variant.device_stats()?.map_or(0, |s| s.len()))
    }

    /// After [`analyze`](Self::analyze) that found N components: `bounds`
    /// (`N × 5` `u32`: area, x_min, y_min, x_max, y_max), `sums` (`N × 2`
    /// `u64`: sum_x, sum_y) and `centroids` (`N × 2` `f64`).
    ///
    /// # Safety
    /// The addresses must be device memory of the variant's GPU of the
    /// sizes above, ready in the stream's order.
    pub unsafe fn write_features(&mut self, bounds: u64, sums: u64, centroids: u64) -> Result<()> {
        if self.last != Last::Analyzed {
            return Err(Error::Unavailable(
                "write_features follows an analyze call".into(),
            ));
        }
        let stream = self.variant.stream().clone();
        // SAFETY: the caller's contract for the outputs.
        unsafe {
            write_columns(
                &stream,
                &self.kernels.feature_columns,
                self.variant.device_stats()?,
                (bounds, sums, centroids),
            )
        }
    }

    /// The features of the last [`label`](Self::label) with stats (the
    /// shared back end's, of the variant's labels) or
    /// [`analyze`](Self::analyze) (the variant's own), copied to the host:
    /// one per component, index i for label i + 1. For a caller that lays
    /// them out on the host, as [`pool`](crate::interop::pool) does for
    /// host images ([`ccl_core::opencv`]). Waits for the stream.
    pub fn read_features(&self) -> Result<Vec<ComponentStats>> {
        let stream = self.variant.stream();
        match self.last {
            Last::LabeledWithStats | Last::Analyzed => {
                let Some(components) = self.variant.device_stats()? else {
                    return Ok(Vec::new());
                };
                let components = stream.clone_dtoh(&components).map_err(cuda_error)?;
                Ok(components.into_iter().map(ComponentStats::from).collect())
            }
            Last::None | Last::AnalyzedVolume => Err(Error::Unavailable(
                "read_features follows a label call with stats or an analyze call".into(),
            )),
        }
    }

    /// The array as a byte image: the caller's memory itself where its
    /// layout allows, else a packed copy made by `ccl_binarize`.
    ///
    /// # Safety
    /// As for [`label`](Self::label).
    unsafe fn source(&mut self, array: &DeviceArray) -> Result<Source> {
        if array.width == 0 || array.height == 0 {
            return Err(Error::InvalidDimensions(format!(
                "a {}x{} array has no pixels",
                array.width, array.height
            )));
        }
        ccl_core::check_size(array.width, array.height)?;
        let stream = self.variant.stream().clone();
        if array.is_byte_image() {
            let pitch = array.row_stride as usize;
            let len = (array.height - 1) * pitch + array.width;
            // SAFETY: the caller's contract: the array spans these bytes.
            let bytes = unsafe { Borrowed::<u8>::new(&stream, array.address, len) };
            return Ok(Source::Borrowed {
                bytes,
                width: array.width,
                height: array.height,
                pitch,
            });
        }
        let mask = array.element.value_mask()?;
        let pixels = array.width * array.height;
        let (width, height) = (
            i32::try_from(array.width).map_err(|_| too_large())?,
            i32::try_from(array.height).map_err(|_| too_large())?,
        );
        let packed = DevPtr::of_mut(self.packed.reserve(&stream, pixels)?, &stream);
        // SAFETY: the caller's contract for the array (every element lies at
        // its strides); `packed` holds a byte per pixel.
        unsafe {
            self.kernels.binarize.launch(
                &stream,
                tile_grid(array.width, array.height, (32, 8))?,
                (
                    DevPtr::from_address(array.address),
                    array.row_stride as i64,
                    array.column_stride as i64,
                    width,
                    height,
                    array.element.bytes() as u32,
                    mask,
                    packed,
                ),
            )?;
        }
        Ok(Source::Packed {
            width: array.width,
            height: array.height,
        })
    }
}

/// Where the byte image of a call lies.
enum Source {
    /// The caller's own bytes.
    Borrowed {
        bytes: Borrowed<u8>,
        width: usize,
        height: usize,
        pitch: usize,
    },
    /// The labeler's packed copy.
    Packed { width: usize, height: usize },
}

impl Source {
    fn image<'a>(&'a self, packed: &'a DeviceBuffer<u8>) -> Result<DeviceImage<'a>> {
        match self {
            Source::Borrowed {
                bytes,
                width,
                height,
                pitch,
            } => DeviceImage::new(bytes.0.as_view(), *width, *height, *pitch),
            Source::Packed { width, height } => {
                DeviceImage::new(packed.get()?.as_view(), *width, *height, *width)
            }
        }
    }
}

/// The arguments of a kernel that lays out records as the columns of
/// `analyze`: the records and their count, then the addresses of the bounds,
/// the sums and the centroids.
type ColumnArgs<T> = (DevPtr<T>, u32, DevPtr<u32>, DevPtr<u64>, DevPtr<f64>);

/// Lays out `records` (none where no component was found) with `kernel`
/// into the columns at `(bounds, sums, centroids)`, a thread per record.
///
/// # Safety
/// The addresses must be device memory of the stream's GPU as large as the
/// kernel writes for the records, ready in the stream's order.
unsafe fn write_columns<T: DeviceRepr>(
    stream: &Arc<CudaStream>,
    kernel: &Kernel<ColumnArgs<T>>,
    records: Option<CudaView<'_, T>>,
    (bounds, sums, centroids): (u64, u64, u64),
) -> Result<()> {
    let Some(records) = records else {
        return Ok(());
    };
    let count = u32::try_from(records.len()).map_err(|_| too_large())?;
    // SAFETY: the caller's contract for the outputs; `records` holds
    // `count` entries.
    unsafe {
        kernel.launch(
            stream,
            linear_grid(records.len(), 256)?,
            (
                DevPtr::of(&records, stream),
                count,
                DevPtr::from_address(bounds),
                DevPtr::from_address(sums),
                DevPtr::from_address(centroids),
            ),
        )
    }
}

fn too_large() -> Error {
    Error::InvalidDimensions("the array is too large for 32-bit indices".into())
}
