//! A worker labels one strip at a time, on the CPU or on a GPU, and keeps
//! its buffers from strip to strip; the driver gives each its own thread.

use ccl::{Connectivity, Result};

use crate::Shape;
use crate::cpu::CpuWorker;
use crate::gpu::GpuWorker;
use crate::merge::{LabelBuffers, Renumbering, StripScan};
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

    /// Labels the strip alone: what the merge needs of it. With `keep`,
    /// its labels stay where they are (host memory, or the GPU), so that
    /// [`write`](Self::write) renumbers them without reading and labeling
    /// the strip again.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scan(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        with_stats: bool,
        keep: bool,
        planes: &LabelBuffers,
        trace: StripTrace<'_>,
    ) -> Result<StripScan> {
        match self {
            Worker::Cpu(worker) => {
                worker.scan(shape, strip, connectivity, with_stats, keep, planes)
            }
            Worker::Gpu(worker) => {
                worker.scan(shape, strip, connectivity, with_stats, keep, planes, trace)
            }
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
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write<L: LabelWord>(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        count: u32,
        renumbering: &Renumbering,
        sink: &dyn PlaneSink<L>,
        trace: StripTrace<'_>,
    ) -> Result<()> {
        match self {
            Worker::Cpu(worker) => trace.step("write", || {
                worker.write(shape, strip, connectivity, count, renumbering, sink)
            }),
            Worker::Gpu(worker) => {
                worker.write(shape, strip, connectivity, count, renumbering, sink, trace)
            }
        }
    }
}
