//! `ccl label` / `ccl analyze --max-gpu-memory`: an image or volume larger
//! than the GPU's memory, or past 2^32 pixels, labeled in strips streamed
//! through the GPU (`ccl-scale`): a `.npy` read plane by plane, the labels
//! written plane by plane into a `.npy` (`uint64` only past 2^32 − 2
//! pixels), or the features merged per component, so that host memory
//! holds only the strips in flight.

use std::path::Path;
use std::process::ExitCode;

use ccl::{Connectivity, Task};
use ccl_scale::{NpySink, NpySource, Shape, StripLabeler, StripOptions, needs_wide_labels};

use crate::output::{Stdout, out};

/// The options of `label` and `analyze` that stream the input in strips.
#[derive(clap::Args)]
pub(crate) struct StripArgs {
    /// Work in strips streamed through the GPU, taking at most this much of
    /// each GPU's memory (8GiB, 512MiB, 2GB): for an image or volume larger
    /// than the GPU's memory, or past 2^32 pixels (labels are then uint64;
    /// features merged per component, areas past 2^32 included). The input
    /// is a .npy of bool or uint8 (2-D or 3-D, C order) read plane by
    /// plane, and `label -o` a .npy written plane by plane, so host memory
    /// holds only the strips in flight. With a CPU algorithm (-a cpu-rle),
    /// the cap is the host's working memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub(crate) max_gpu_memory: Option<u64>,
    /// With --max-gpu-memory: the GPUs to deal the strips to, by ordinal
    /// (0,1), each with four workers [default: 0].
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        requires = "max_gpu_memory"
    )]
    pub(crate) devices: Vec<usize>,
}

/// What the streamed labeling and analysis take from the command line.
pub(crate) struct Streamed<'a> {
    pub(crate) input: &'a Path,
    pub(crate) connectivity: Option<Connectivity>,
    pub(crate) algorithm: Option<&'a str>,
    pub(crate) max_memory: u64,
    pub(crate) devices: Vec<usize>,
}

/// The input opened for strips, and the labeler that streams it.
pub(crate) struct Opened {
    pub(crate) source: NpySource,
    pub(crate) shape: Shape,
    pub(crate) connectivity: Connectivity,
    pub(crate) labeler: StripLabeler,
}

fn not_npy(path: &Path) -> bool {
    path.extension()
        .is_none_or(|e| !e.eq_ignore_ascii_case("npy"))
}

/// Opens the `.npy` for strips and makes their labeler: the named
/// variant's backend, else the preferred one's (a GPU where one works), the
/// connectivity the fullest of the input's dimension unless given.
pub(crate) fn open(streamed: Streamed<'_>, task: Task) -> Result<Opened, crate::Error> {
    if not_npy(streamed.input) {
        return Err(format!(
            "{}: --max-gpu-memory streams a .npy (bool or uint8, C order) plane by plane; \
             convert the input first (numpy.save)",
            streamed.input.display()
        )
        .into());
    }
    let source = NpySource::open(streamed.input)?;
    let shape = source.shape();
    let connectivity = streamed.connectivity.unwrap_or(match shape {
        Shape::Image { .. } => Connectivity::Eight,
        Shape::Volume { .. } => Connectivity::TwentySix,
    });
    let backend = match streamed.algorithm {
        Some(name) => ccl::find(name)?.backend,
        None => ccl::default_algorithm(task, connectivity)?.backend,
    };
    let options = StripOptions {
        backend,
        devices: streamed.devices,
        max_memory: Some(streamed.max_memory),
        variant: streamed.algorithm.map(str::to_string),
        ..StripOptions::default()
    };
    let labeler = StripLabeler::new(options, connectivity)?;
    Ok(Opened {
        source,
        shape,
        connectivity,
        labeler,
    })
}

/// `ccl label --max-gpu-memory`: the count, and the labels into `output`.
pub(crate) fn label(
    streamed: Streamed<'_>,
    output: Option<&Path>,
) -> Result<ExitCode, crate::Error> {
    if let Some(output) = output.filter(|&o| not_npy(o)) {
        return Err(format!(
            "-o {}: --max-gpu-memory writes the labels plane by plane into a .npy",
            output.display()
        )
        .into());
    }
    let Opened {
        source,
        shape,
        connectivity,
        labeler,
    } = open(streamed, Task::Label)?;
    let wide = needs_wide_labels(shape);
    let report = match output {
        Some(output) => {
            let sink = NpySink::create(output, shape, wide)?;
            if wide {
                labeler.label::<u64>(shape, connectivity, &source, &sink)?
            } else {
                labeler.label::<u32>(shape, connectivity, &source, &sink)?
            }
        }
        // The count needs only the first pass and the merge.
        None => labeler.count(shape, connectivity, &source)?,
    };
    let plural = if report.count == 1 { "" } else { "s" };
    out!(Stdout::lock(), "{} component{plural}", report.count)?;
    Ok(ExitCode::SUCCESS)
}

/// `--max-gpu-memory`'s value ([`ccl_scale::parse_size`]).
pub(crate) fn parse_bytes(text: &str) -> Result<u64, String> {
    ccl_scale::parse_size(text).map_err(|e| e.to_string())
}
