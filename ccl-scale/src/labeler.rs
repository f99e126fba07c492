//! The strip labeler: plans strips under the memory cap, deals them to the
//! workers (every GPU named, several workers each, or CPU threads), merges
//! the borders, and deals them again to write the final labels.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use ccl::{Algorithm, Backend, Connectivity, Error, MAX_PIXELS, Result, Task, Variant};

use crate::Shape;
use crate::columns::{self, FeatureColumns, Rows};
use crate::cpu::CpuWorker;
use crate::gpu::GpuWorker;
use crate::merge::{self, BorderPairs, LabelBuffers, LargeStats, MergeMemory, Scan, StripFeatures};
use crate::stream::{LabelWord, Labels, Pixels, PlaneSink, PlaneSource};
use crate::trace::{StripTrace, Trace};
use crate::worker::{Features, Strip, StripJob, Worker};

/// Device bytes a worker holds per pixel of its strip, besides the labels
/// it writes: the pixels (1), their labels (4), the renumbering table (at
/// most one component per two pixels: 4), and room for the variant's own
/// scratch (16). Measured: 4 workers under an 8 GiB cap held 6.3 GiB at
/// peak on a 65536² image at d = 60 % (bench/2026-11-25-h200-scale); a
/// variant whose scratch grows with the components (a checkerboard) may
/// take more.
const WORKER_BYTES_PER_PIXEL: u64 = 1 + 4 + 4 + 16;

/// Of the free GPU memory, the share a labeler takes when no cap is given.
const DEFAULT_GPU_SHARE: f64 = 0.8;

/// CUDA kernels take rows as `int`, with room past the end
/// (`DeviceImage::new`).
const MAX_KERNEL_ROWS: usize = i32::MAX as usize - 1024;

/// How a [`StripLabeler`] runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StripOptions {
    /// Where the strips are labeled.
    pub backend: Backend,
    /// The GPUs of a CUDA run, by ordinal; empty for GPU 0.
    pub devices: Vec<usize>,
    /// Workers per GPU (each with its own stream, so that one's transfers
    /// and host copies overlap another's labeling), or CPU workers;
    /// default 4.
    pub workers_per_device: usize,
    /// The memory the labeling may take on each device, its workers
    /// together, in bytes: the GPU's (default: 80 % of what is free), or
    /// the host's working memory on the CPU (default: strips as large as
    /// 32-bit labels allow). Whatever the cap, a strip stays under `2^32 −
    /// 2` pixels.
    pub max_memory: Option<u64>,
    /// The tallest strip in planes (rows or slices), below what the memory
    /// allows: to force many strips (tests) or bound host buffers.
    pub max_strip_planes: Option<usize>,
    /// The registered variant that labels each strip, of `backend`; `None`
    /// for the preferred one.
    pub variant: Option<String>,
}

impl Default for StripOptions {
    fn default() -> Self {
        Self {
            backend: Backend::Cuda,
            devices: Vec::new(),
            workers_per_device: 4,
            max_memory: None,
            max_strip_planes: None,
            variant: None,
        }
    }
}

/// What a labeling in strips did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StripReport {
    /// The components of the whole image: its labels are 1..=count.
    pub count: u64,
    /// The strips it was cut into.
    pub strips: usize,
    /// The planes of each strip (the last may have fewer).
    pub strip_planes: usize,
    /// The workers that labeled them.
    pub workers: usize,
    /// The strips whose first labels stayed on their device (or in host
    /// memory, on the CPU) for the second pass, which then renumbered them
    /// without reading and labeling the strip again: as many as the memory
    /// left beside the workers' own holds. Only [`StripLabeler::label`]
    /// keeps any.
    pub kept: usize,
}

/// Labels images and volumes of any size in strips (runs of rows, or of
/// slices), each strip labeled alone on a GPU (or the CPU) and the borders
/// merged: canonical labels across the whole image (1..=N in raster order
/// of each component's first pixel), `u32` or `u64`, and features per
/// component, with device and host memory bounded by the strips in
/// flight.
///
/// Each strip is labeled twice: once to find its border labels (and
/// features), once, after the merge, to write its final labels. Labeling
/// runs at tens of gigapixels a second, far above the host link, so the
/// second labeling costs less than keeping the first's labels would cost
/// in transfers or host memory.
///
/// A labeler makes its workers (a GPU's: a stream, device buffers and
/// 32 MiB of pinned staging) on its first call and keeps them for the
/// next: pinning host memory costs more than labeling a strip, so a
/// labeler is made once and reused; its calls run one at a time. A GPU
/// worker also keeps the device buffers of the strips' labels it kept in
/// its last [`label`](Self::label) call, for the next call's, until the
/// labeler is dropped.
pub struct StripLabeler {
    options: StripOptions,
    variant: Variant,
    workers: Mutex<Vec<Worker>>,
    merge_memory: Mutex<MergeMemory>,
    label_buffers: LabelBuffers,
}

impl std::fmt::Debug for StripLabeler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripLabeler")
            .field("options", &self.options)
            .field("variant", &self.variant.algorithm().name)
            .finish_non_exhaustive()
    }
}

impl StripLabeler {
    /// Checks the options: the variant exists, is of the backend, labels
    /// and analyzes in `connectivity`, and can run here.
    pub fn new(options: StripOptions, connectivity: Connectivity) -> Result<Self> {
        if options.workers_per_device == 0 {
            return Err(Error::InvalidArgument(
                "a strip labeler needs at least one worker per device".into(),
            ));
        }
        if options.max_strip_planes == Some(0) || options.max_memory == Some(0) {
            return Err(Error::InvalidArgument(
                "a strip needs at least one plane and some memory".into(),
            ));
        }
        let variant = match &options.variant {
            Some(name) => Variant::named(name, Task::Label, connectivity)?,
            None => Variant::preferred_on(options.backend, Task::Label, connectivity)?,
        };
        let algorithm = variant.algorithm();
        if algorithm.backend != options.backend {
            return Err(Error::InvalidArgument(format!(
                "{} runs on the {:?} backend, not on the {:?} one asked for",
                algorithm.name, algorithm.backend, options.backend
            )));
        }
        Ok(Self {
            options,
            variant,
            workers: Mutex::new(Vec::new()),
            merge_memory: Mutex::default(),
            label_buffers: LabelBuffers::default(),
        })
    }

    /// The variant that labels each strip.
    pub fn variant(&self) -> &'static Algorithm {
        self.variant.algorithm()
    }

    /// Labels the image or volume that `source` reads (of `shape`) into
    /// `sink`, plane by plane: canonical labels of type `L` across the
    /// whole of it. An error where its components do not fit `L`.
    pub fn label<L: LabelWord>(
        &self,
        shape: Shape,
        connectivity: Connectivity,
        source: &dyn PlaneSource,
        sink: &dyn PlaneSink<L>,
    ) -> Result<StripReport> {
        let trace = Trace::from_env();
        let label_bytes = size_of::<L>() as u64;
        let mut pass = self.scan_and_number(
            shape,
            connectivity,
            source,
            label_bytes,
            true,
            FeaturePass::None,
            &trace,
        )?;
        let written = self.write_strips(&mut pass, shape, connectivity, source, sink, &trace);
        release_kept(&mut pass.workers);
        written?;
        Ok(pass.report())
    }

    /// The second pass of [`label`](Self::label): every strip's final
    /// labels, each strip on the worker that kept its labels, the others
    /// read and labeled again by whichever worker is free.
    fn write_strips<L: LabelWord>(
        &self,
        pass: &mut FirstPass<'_>,
        shape: Shape,
        connectivity: Connectivity,
        source: &dyn PlaneSource,
        sink: &dyn PlaneSink<L>,
        trace: &Trace,
    ) -> Result<()> {
        if pass.numbering.count > L::MAX {
            return Err(Error::InvalidArgument(format!(
                "{} components do not fit {} labels; ask for 64-bit ones",
                pass.numbering.count,
                L::NAME
            )));
        }
        let (strips, scans, numbering) = (&pass.strips, &pass.scans, &pass.numbering);
        let keepers = &pass.keepers;
        for_each_strip(
            &mut pass.workers,
            strips,
            keepers,
            |worker, index, worker_index| {
                let strip = strips[index];
                let step = trace.strip(worker_index, index);
                if keepers[index].is_none() {
                    read(worker, shape, strip, source, step)?;
                }
                // A strip labeled again has the components its scan found.
                let count = scans[index].count;
                let renumbering = &numbering.strips[index];
                let job = StripJob {
                    shape,
                    strip,
                    connectivity,
                };
                worker.write(job, count, renumbering, sink, step)
            },
        )
    }

    /// The components of the image or volume that `source` reads: the
    /// first pass and the merge of [`label`](Self::label), no labels written.
    pub fn count(
        &self,
        shape: Shape,
        connectivity: Connectivity,
        source: &dyn PlaneSource,
    ) -> Result<StripReport> {
        let trace = Trace::from_env();
        Ok(self
            .scan_and_number(
                shape,
                connectivity,
                source,
                0,
                false,
                FeaturePass::None,
                &trace,
            )?
            .report())
    }

    /// [`label`](Self::label) of packed pixels in memory into `labels`
    /// (one per pixel, packed; every one overwritten).
    pub fn label_pixels<L: LabelWord>(
        &self,
        pixels: &Pixels<'_>,
        connectivity: Connectivity,
        labels: &mut [L],
    ) -> Result<StripReport> {
        let shape = pixels.shape();
        let sink = Labels::new(labels, shape)?;
        self.label(shape, connectivity, pixels, &sink)
    }

    /// The features of every component of the image or volume that
    /// `source` reads, index `n − 1` for canonical label `n`, merged across
    /// strips (one labeling of each; no labels are written).
    pub fn analyze(
        &self,
        shape: Shape,
        connectivity: Connectivity,
        source: &dyn PlaneSource,
    ) -> Result<Vec<LargeStats>> {
        let trace = Trace::from_env();
        let pass = self.scan_and_number(
            shape,
            connectivity,
            source,
            0,
            false,
            FeaturePass::Host,
            &trace,
        )?;
        trace.step("features", || {
            merge::merge_stats(&pass.numbering, &pass.scans)
        })
    }

    /// The features of every component, as [`analyze`](Self::analyze)
    /// finds them, in columns over the first `axes` axes (2 for x, y; 3 for
    /// x, y, z), each area made `A` by `area` (a narrowing the caller knows
    /// safe: any area is at most the pixels of the input).
    ///
    /// The features are written once, into the columns: on a GPU, each
    /// strip's stay on its device until the merge (where the room beside the
    /// workers' strips holds them) and come down as rows of the columns;
    /// otherwise they are written on every thread of the host's pool. For
    /// tens of millions of components, no vector of [`LargeStats`] of the
    /// whole input is made on the way.
    pub fn analyze_columns<A: Copy + Default + Send + Sync + Into<u64>>(
        &self,
        shape: Shape,
        connectivity: Connectivity,
        source: &dyn PlaneSource,
        axes: usize,
        area: fn(u64) -> A,
    ) -> Result<FeatureColumns<A>> {
        if !(1..=3).contains(&axes) {
            return Err(Error::InvalidArgument(format!(
                "centroids over {axes} axes: there are 1 to 3"
            )));
        }
        let trace = Trace::from_env();
        let mut pass = self.scan_and_number(
            shape,
            connectivity,
            source,
            0,
            false,
            FeaturePass::KeptWhereRoom,
            &trace,
        )?;
        let columns = trace.step("features", || {
            let FirstPass {
                workers,
                strips,
                scans,
                feature_keepers,
                numbering,
                ..
            } = &mut pass;
            columns::merge_columns(
                numbering,
                scans,
                axes,
                area,
                |shares| {
                    // Each kept strip's share goes to the worker that kept its
                    // features; the others have none (`None`) and are done.
                    let shares: Vec<Mutex<Option<Rows<'_, A>>>> =
                        shares.into_iter().map(Mutex::new).collect();
                    let continued: Vec<Mutex<Vec<LargeStats>>> =
                        strips.iter().map(|_| Mutex::default()).collect();
                    for_each_strip(
                        workers,
                        strips,
                        feature_keepers,
                        |worker, index, worker_index| {
                            let share = shares[index]
                                .lock()
                                .expect("no worker panics holding it")
                                .take();
                            let Some(share) = share else {
                                return Ok(());
                            };
                            let strip = strips[index];
                            let (count, renumbering) =
                                (scans[index].count, &numbering.strips[index]);
                            let job = StripJob {
                                shape,
                                strip,
                                connectivity,
                            };
                            let features =
                                trace.strip(worker_index, index).step("columns", || {
                                    worker.write_columns(job, count, renumbering, share, axes, area)
                                })?;
                            *continued[index]
                                .lock()
                                .expect("no worker panics holding it") = features;
                            Ok(())
                        },
                    )?;
                    Ok(continued
                        .into_iter()
                        .map(|features| features.into_inner().expect("no worker panics holding it"))
                        .collect())
                },
                &trace,
            )
        });
        release_kept(&mut pass.workers);
        columns
    }

    /// What every call does first: the strips planned (for `label_bytes`
    /// of output a pixel), each labeled alone (with its `features`; its
    /// labels, and features asked to be kept, kept where its device has
    /// room beyond the workers' own), and the components numbered across
    /// the borders.
    #[allow(clippy::too_many_arguments)]
    fn scan_and_number(
        &self,
        shape: Shape,
        connectivity: Connectivity,
        source: &dyn PlaneSource,
        label_bytes: u64,
        keep: bool,
        features: FeaturePass,
        trace: &Trace,
    ) -> Result<FirstPass<'_>> {
        shape.check(connectivity)?;
        let mut workers = self.lease_workers()?;
        let budget = self.budget(&workers)?;
        let strip_planes = self.strip_planes(shape, label_bytes, budget)?;
        let strips = cut(shape, strip_planes);
        let keeps_any = keep || features == FeaturePass::KeptWhereRoom;
        let room = match (keeps_any, budget) {
            (true, Some(budget)) => {
                let per_pixel = WORKER_BYTES_PER_PIXEL + label_bytes;
                let strip_bytes = (strip_planes * shape.plane_len()) as u64 * per_pixel;
                let workers_bytes = self.options.workers_per_device as u64 * strip_bytes;
                budget.saturating_sub(workers_bytes)
            }
            _ => 0,
        };
        let devices = workers.len().div_ceil(self.options.workers_per_device);
        let room = KeepRoom {
            per_device: (0..devices).map(|_| AtomicU64::new(room)).collect(),
            workers_per_device: self.options.workers_per_device,
        };
        let borders = BorderPairs::new(shape, connectivity, strips.len(), &self.label_buffers);
        let first_pass = scan_strips(
            &mut workers,
            shape,
            connectivity,
            &strips,
            source,
            features,
            Keeping { labels: keep, room },
            &borders,
            trace,
        )
        .and_then(|(scans, keepers)| {
            let joins = borders.into_joins();
            let numbering = trace.step("merge", || {
                let mut memory = self.merge_memory.lock().unwrap_or_else(|e| e.into_inner());
                merge::number(&scans, joins, &mut memory, trace)
            })?;
            Ok((scans, keepers, numbering))
        });
        let (
            scans,
            Keepers {
                labels: keepers,
                features: feature_keepers,
            },
            numbering,
        ) = match first_pass {
            Ok(first_pass) => first_pass,
            Err(error) => {
                release_kept(&mut workers);
                return Err(error);
            }
        };
        Ok(FirstPass {
            workers,
            strips,
            strip_planes,
            scans,
            keepers,
            feature_keepers,
            numbering,
        })
    }

    /// The labeler's workers, made on the first call; held until the call
    /// ends, so that calls from several threads run one after the other.
    fn lease_workers(&self) -> Result<std::sync::MutexGuard<'_, Vec<Worker>>> {
        // A call that failed leaves its workers as fit for the next as any.
        let mut workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        if workers.is_empty() {
            *workers = self.make_workers()?;
        }
        Ok(workers)
    }

    fn make_workers(&self) -> Result<Vec<Worker>> {
        let per_device = self.options.workers_per_device;
        match self.options.backend {
            Backend::Cpu => Ok((0..per_device)
                .map(|_| Worker::Cpu(CpuWorker::new(self.variant)))
                .collect()),
            Backend::Cuda => {
                let devices = if self.options.devices.is_empty() {
                    vec![0]
                } else {
                    self.options.devices.clone()
                };
                let mut workers = Vec::new();
                for &device in &devices {
                    for _ in 0..per_device {
                        workers.push(Worker::Gpu(Box::new(GpuWorker::new(
                            device,
                            self.variant.algorithm().name,
                        )?)));
                    }
                }
                Ok(workers)
            }
        }
    }

    /// The memory the call may take of each device, its workers together:
    /// the cap, or on GPUs a share of the least memory free (or held as
    /// the workers' spares) of any; `None`
    /// for the CPU without a cap.
    fn budget(&self, workers: &[Worker]) -> Result<Option<u64>> {
        Ok(match (self.options.max_memory, self.options.backend) {
            (Some(cap), _) => Some(cap),
            (None, Backend::Cuda) => {
                // A device's free memory, and the spare label buffers its
                // workers hold from earlier calls (theirs to reuse).
                let mut free = u64::MAX;
                for device_workers in workers.chunks(self.options.workers_per_device) {
                    let mut available = 0;
                    for (index, worker) in device_workers.iter().enumerate() {
                        if let Worker::Gpu(gpu) = worker {
                            if index == 0 {
                                available += gpu.free_memory()?;
                            }
                            available += gpu.spare_bytes();
                        }
                    }
                    free = free.min(available);
                }
                Some((free as f64 * DEFAULT_GPU_SHARE) as u64)
            }
            (None, Backend::Cpu) => None,
        })
    }

    /// The planes of each strip: what each worker's share of the memory
    /// `budget` holds at `label_bytes` of output per pixel, under the other
    /// limits.
    fn strip_planes(&self, shape: Shape, label_bytes: u64, budget: Option<u64>) -> Result<usize> {
        let plane = shape.plane_len().max(1) as u64;
        let mut planes = shape.planes().max(1) as u64;
        planes = planes.min(MAX_PIXELS / plane);
        if self.options.backend == Backend::Cuda {
            planes = planes.min((MAX_KERNEL_ROWS / shape.plane_rows().max(1)) as u64);
        }
        if let Some(budget) = budget {
            let per_worker = budget / self.options.workers_per_device as u64;
            let per_plane = plane * (WORKER_BYTES_PER_PIXEL + label_bytes);
            planes = planes.min(per_worker / per_plane);
        }
        if self.options.backend == Backend::Cuda {
            // At least a plane: a plane past the preferred size is a strip of its own.
            let workers = self.options.workers_per_device * self.options.devices.len().max(1);
            planes = planes.min((preferred_gpu_strip_pixels(shape, workers) / plane).max(1));
        }
        if let Some(max) = self.options.max_strip_planes {
            planes = planes.min(max as u64);
        }
        if planes == 0 {
            return Err(Error::InvalidArgument(format!(
                "one plane of {plane} pixels does not fit the memory cap of {} bytes over {} workers a device (or 32-bit labels)",
                budget.unwrap_or(0),
                self.options.workers_per_device
            )));
        }
        Ok(planes as usize)
    }
}

/// The first pass of a call and the merge, with the workers still held
/// for a second pass.
struct FirstPass<'a> {
    workers: std::sync::MutexGuard<'a, Vec<Worker>>,
    strips: Vec<Strip>,
    strip_planes: usize,
    scans: Vec<Scan>,
    /// Per strip: the worker that kept its labels, if one did.
    keepers: Vec<Option<usize>>,
    /// Per strip: the worker that kept its features on its GPU, if one did.
    feature_keepers: Vec<Option<usize>>,
    numbering: merge::Numbering,
}

/// The features a call's first pass gathers, and where it leaves them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FeaturePass {
    /// None: labels only.
    None,
    /// In host memory, every strip's ([`StripLabeler::analyze`]).
    Host,
    /// On the GPUs where they have room, for the columns
    /// ([`StripLabeler::analyze_columns`]).
    KeptWhereRoom,
}

/// What a call's scans keep where they ran: the labels (where `labels`)
/// and the features asked to be kept, while `room` lasts.
struct Keeping {
    labels: bool,
    room: KeepRoom,
}

/// Per strip, the worker that kept its labels, and the one that kept its
/// features on its GPU, if any did.
struct Keepers {
    labels: Vec<Option<usize>>,
    features: Vec<Option<usize>>,
}

/// The device memory left for kept strip labels and features, per device
/// (workers `d * workers_per_device ..` are device `d`'s).
struct KeepRoom {
    per_device: Vec<AtomicU64>,
    workers_per_device: usize,
}

impl KeepRoom {
    /// Takes `bytes` of worker `worker`'s device's room; whether there was
    /// that much.
    fn take(&self, worker: usize, bytes: u64) -> bool {
        let room = &self.per_device[worker / self.workers_per_device];
        room.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            left.checked_sub(bytes)
        })
        .is_ok()
    }
}

impl FirstPass<'_> {
    fn report(&self) -> StripReport {
        StripReport {
            count: self.numbering.count,
            strips: self.strips.len(),
            strip_planes: self.strip_planes,
            workers: self.workers.len(),
            kept: self.keepers.iter().flatten().count(),
        }
    }
}

/// Pixels of a GPU strip, whatever the memory allows: about two strips a
/// worker, so that one worker's transfers overlap another's, within
/// 2^24..=2^26 pixels. Strips of 2^26 pixels keep the link busy (65536²
/// under an 8 GiB cap, bench/2026-11-25-h200-scale-2); two strips of 2^29
/// took 327 ms at 32768² where sixteen of 2^26 took 194. Four strips a
/// worker were slower on two GPUs (eight workers) for volumes, whose
/// borders cost host work each: 1024³ at d = 31 % took 437 ms in
/// 6-connectivity (259 ms in strips of 2^26) and 422 in 26 (240),
/// bench/2026-11-27-h200x2-two-gpus.
fn preferred_gpu_strip_pixels(shape: Shape, workers: usize) -> u64 {
    const SMALLEST: u64 = 1 << 24;
    const LARGEST: u64 = 1 << 26;
    (shape.pixels() / (2 * workers.max(1) as u64)).clamp(SMALLEST, LARGEST)
}

/// `shape`'s planes cut into strips of `strip_planes` (the last shorter);
/// none for a shape without pixels.
fn cut(shape: Shape, strip_planes: usize) -> Vec<Strip> {
    if shape.pixels() == 0 {
        return Vec::new();
    }
    (0..shape.planes())
        .step_by(strip_planes)
        .map(|first| Strip {
            first,
            planes: strip_planes.min(shape.planes() - first),
        })
        .collect()
}

/// Ends a call's keeping of strips' labels (a GPU worker's buffers stay
/// as spares for the next call's, `GpuWorker::release_kept`).
fn release_kept(workers: &mut [Worker]) {
    for worker in workers {
        worker.release_kept();
    }
}

/// The strip's pixels, read from `source`, where the worker labels them.
fn read(
    worker: &mut Worker,
    shape: Shape,
    strip: Strip,
    source: &dyn PlaneSource,
    trace: StripTrace<'_>,
) -> Result<()> {
    let bytes = strip.planes * shape.plane_len();
    trace.step("read", || {
        worker.load(source, strip.first, bytes, shape.plane_len())
    })
}

/// Every strip labeled alone, in order, its border planes compared with
/// its neighbours' in `borders` as they come in, with its `features`, its
/// labels (and features asked to be kept) kept by its worker where
/// `keeping` has room on the worker's device: the scans, and per strip the
/// workers that kept its labels and features.
#[allow(clippy::too_many_arguments)]
fn scan_strips(
    workers: &mut [Worker],
    shape: Shape,
    connectivity: Connectivity,
    strips: &[Strip],
    source: &dyn PlaneSource,
    features: FeaturePass,
    keeping: Keeping,
    borders: &BorderPairs,
    trace: &Trace,
) -> Result<(Vec<Scan>, Keepers)> {
    type Scanned = (Scan, Option<usize>, Option<usize>);
    let scans: Vec<Mutex<Scanned>> = strips.iter().map(|_| Mutex::default()).collect();
    let anyone = vec![None; strips.len()];
    // The border planes are compared on the host's pool, off the workers'
    // threads, so that a worker's GPU takes its next strip meanwhile
    // (`BorderPairs::compare`). The scope waits for every comparison.
    rayon::in_place_scope(|comparisons| {
        for_each_strip(workers, strips, &anyone, |worker, index, worker_index| {
            let strip = strips[index];
            let step_trace = trace.strip(worker_index, index);
            read(worker, shape, strip, source, step_trace)?;
            let label_bytes = (strip.planes * shape.plane_len() * size_of::<u32>()) as u64;
            let kept = keeping.labels && keeping.room.take(worker_index, label_bytes);
            let room = |bytes: u64| keeping.room.take(worker_index, bytes);
            let features = match features {
                FeaturePass::None => Features::None,
                FeaturePass::Host => Features::Host,
                FeaturePass::KeptWhereRoom => Features::KeptWhereRoom(&room),
            };
            let scan = step_trace.step("scan", || {
                let job = StripJob {
                    shape,
                    strip,
                    connectivity,
                };
                worker.scan(job, features, kept, borders.planes(), step_trace)
            })?;
            let keeper = kept.then_some(worker_index);
            let features_keeper =
                matches!(scan.features, StripFeatures::Kept).then_some(worker_index);
            let scan = step_trace.step("pairs", || {
                borders.add(index, scan, comparisons, step_trace)
            });
            *scans[index].lock().expect("no worker panics holding it") =
                (scan, keeper, features_keeper);
            Ok(())
        })
    })?;
    let mut keepers = Keepers {
        labels: Vec::with_capacity(strips.len()),
        features: Vec::with_capacity(strips.len()),
    };
    let scans = scans
        .into_iter()
        .map(|scan| {
            let (scan, labels, features) = scan.into_inner().expect("no worker panics holding it");
            keepers.labels.push(labels);
            keepers.features.push(features);
            scan
        })
        .collect();
    Ok((scans, keepers))
}

/// Runs `job` on every strip index, each worker on a thread of its own:
/// first the strips `keepers` gives it, in order, then the next strip that
/// no worker keeps until none is left; the first error stops the others
/// (after their current strip) and is returned. `job` takes the worker,
/// the strip's index and the worker's index.
fn for_each_strip(
    workers: &mut [Worker],
    strips: &[Strip],
    keepers: &[Option<usize>],
    job: impl Fn(&mut Worker, usize, usize) -> Result<()> + Sync,
) -> Result<()> {
    let shared: Vec<usize> = (0..strips.len())
        .filter(|&index| keepers[index].is_none())
        .collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for (worker_index, worker) in workers.iter_mut().enumerate() {
            let (next, failed, first_error, job) = (&next, &failed, &first_error, &job);
            let shared = &shared;
            let own = (0..strips.len()).filter(move |&index| keepers[index] == Some(worker_index));
            scope.spawn(move || {
                let mut own = own;
                while !failed.load(Ordering::Relaxed) {
                    let index = match own.next() {
                        Some(index) => index,
                        None => match shared.get(next.fetch_add(1, Ordering::Relaxed)) {
                            Some(&index) => index,
                            None => break,
                        },
                    };
                    if let Err(error) = job(worker, index, worker_index) {
                        failed.store(true, Ordering::Relaxed);
                        first_error
                            .lock()
                            .expect("held only to store an error")
                            .get_or_insert(error);
                    }
                }
            });
        }
    });
    match first_error
        .into_inner()
        .expect("no thread panics holding it")
    {
        Some(error) => Err(error),
        None => Ok(()),
    }
}
