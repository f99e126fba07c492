//! A worker labels one strip at a time, on the CPU or on a GPU, and keeps
//! its buffers from strip to strip; the driver gives each its own thread.

use ccl::{Connectivity, Error, Result};

use crate::Shape;
use crate::columns::Rows;
use crate::cpu::CpuWorker;
use crate::gpu::GpuWorker;
use crate::merge::{LabelBuffers, LargeStats, Renumbering, StripScan};
use crate::stream::{LabelWord, PlaneSink, PlaneSource};
use crate::trace::StripTrace;

/// A run of whole planes: rows of an image, slices of a volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Strip {
    /// Its first plane.
    pub(crate) first: usize,
    /// Its planes.
    pub(crate) planes: usize,
}

/// One strip of a call, as every step a worker takes on it sees it: its
/// planes, the input's shape and the connectivity that joins its pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StripJob {
    pub(crate) shape: Shape,
    pub(crate) strip: Strip,
    pub(crate) connectivity: Connectivity,
}

/// The features a scan gathers, and where it leaves them.
#[derive(Clone, Copy)]
pub(crate) enum Features<'a> {
    /// None: labels only.
    None,
    /// In host memory ([`StripFeatures::Host`](crate::merge::StripFeatures)).
    Host,
    /// On the GPU where `room` grants their bytes (it takes them from the
    /// device's room), else in host memory; a CPU worker's stay in host
    /// memory.
    KeptWhereRoom(&'a (dyn Fn(u64) -> bool + Sync)),
}

impl Features<'_> {
    /// Whether any are gathered.
    pub(crate) fn wanted(self) -> bool {
        !matches!(self, Features::None)
    }
}

/// One worker of either kind.
pub(crate) enum Worker {
    Cpu(CpuWorker),
    Gpu(Box<GpuWorker>),
}

impl Worker {
    /// Reads the `bytes` of the planes (of `plane_len` bytes) from `first`
    /// on from `source` for the next [`scan`](Self::scan) or
    /// [`write`](Self::write): into host memory, or onto the GPU (queued on
    /// its stream).
    pub(crate) fn load(
        &mut self,
        source: &dyn PlaneSource,
        first: usize,
        bytes: usize,
        plane_len: usize,
    ) -> Result<()> {
        match self {
            Worker::Cpu(worker) => source.read_planes(first, worker.input(bytes)),
            Worker::Gpu(worker) => worker.load(source, first, bytes, plane_len),
        }
    }

    /// Labels the strip alone: what the merge needs of it, with the
    /// `features` asked for. With `keep`, its labels stay where they are
    /// (host memory, or the GPU), so that [`write`](Self::write)
    /// renumbers them without reading and labeling the strip again.
    pub(crate) fn scan(
        &mut self,
        job: StripJob,
        features: Features<'_>,
        keep: bool,
        planes: &LabelBuffers,
        trace: StripTrace<'_>,
    ) -> Result<StripScan> {
        match self {
            Worker::Cpu(worker) => worker.scan(job, features.wanted(), keep, planes),
            Worker::Gpu(worker) => worker.scan(job, features, keep, planes, trace),
        }
    }

    /// Writes the strip's new components into `share`, its rows of the
    /// columns, from the features its scan kept on this worker's GPU
    /// (`GpuWorker::write_columns`): the features of its continued labels.
    pub(crate) fn write_columns<A: Copy + Send + Sync>(
        &mut self,
        job: StripJob,
        count: u32,
        renumbering: &Renumbering,
        share: Rows<'_, A>,
        axes: usize,
        area: fn(u64) -> A,
    ) -> Result<Vec<LargeStats>> {
        match self {
            Worker::Cpu(_) => Err(Error::Unavailable(
                "a CPU worker keeps no features on a GPU".into(),
            )),
            Worker::Gpu(worker) => worker.write_columns(job, count, renumbering, share, axes, area),
        }
    }

    /// Ends a call's keeping of strips' labels: a CPU worker drops them, a
    /// GPU worker keeps their buffers as spares for its next call's.
    pub(crate) fn release_kept(&mut self) {
        match self {
            Worker::Cpu(worker) => worker.release_kept(),
            Worker::Gpu(worker) => worker.release_kept(),
        }
    }

    /// Writes the strip's final labels to `sink`: the labels its
    /// [`scan`](Self::scan) kept, or, where it kept none, those of
    /// labeling the strip again from its input (its `count` components
    /// known from the scan).
    pub(crate) fn write<L: LabelWord>(
        &mut self,
        job: StripJob,
        count: u32,
        renumbering: &Renumbering,
        sink: &dyn PlaneSink<L>,
        trace: StripTrace<'_>,
    ) -> Result<()> {
        match self {
            Worker::Cpu(worker) => {
                trace.step("write", || worker.write(job, count, renumbering, sink))
            }
            Worker::Gpu(worker) => worker.write(job, count, renumbering, sink, trace),
        }
    }
}
