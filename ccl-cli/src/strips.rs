//! `ccl label` / `ccl analyze --max-gpu-memory`: an image or volume larger
//! than the GPU's memory, or past 2^32 pixels, labeled in strips streamed
//! through the GPU (`ccl-scale`): a `.npy` or a TIFF read plane by plane,
//! the labels written plane by plane into a `.npy` or a TIFF (`uint64` only
//! past 2^32 − 2 pixels), or the features merged per component, so that
//! host memory holds only the strips in flight. Gray values are binarized
//! as they stream, by the rule of `--threshold`, `--otsu` and `--invert`
//! (`ccl_scale::Foreground`), as the in-core reader binarizes them.

use std::path::Path;
use std::process::ExitCode;

use ccl::io::{ByteElement, Threshold};
use ccl::{Connectivity, Task};
use ccl_scale::{
    Binarized, Foreground, NpySink, NpySource, PlaneSink, PlaneSource, Shape, StripLabeler,
    StripOptions, StripReport, TiffSink, TiffSource, needs_wide_labels,
};

use crate::input::Input;
use crate::output::{Stdout, out};

/// The options of `label` and `analyze` that stream the input in strips.
#[derive(clap::Args)]
pub(crate) struct StripArgs {
    /// Work in strips streamed through the GPU, taking at most this much of
    /// each GPU's memory (8GiB, 512MiB, 2GB): for an image or volume larger
    /// than the GPU's memory, or past 2^32 pixels (labels are then uint64;
    /// features merged per component, areas past 2^32 included). The input
    /// is a .npy of bool or uint8 (2-D or 3-D, C order) or a .tif / .tiff
    /// of 8-bit or 1-bit gray pages (one page an image, several a volume;
    /// strips or tiles, any compression), read plane by plane; `label -o`
    /// writes a .npy or an uncompressed .tif / .tiff plane by plane; so host
    /// memory holds only the strips in flight. --threshold, --otsu (chosen
    /// from the whole input, in one more pass over it) and --invert apply
    /// as without it; --alpha and --page do not (--max-pixels neither).
    /// With a CPU algorithm (-a cpu-rle), the cap is the host's working
    /// memory.
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
    input: &'a Path,
    connectivity: Option<Connectivity>,
    algorithm: Option<&'a str>,
    max_memory: u64,
    devices: Vec<usize>,
    /// The rule of --threshold and --otsu (else every nonzero value).
    threshold: Threshold,
    /// --invert.
    invert: bool,
}

impl<'a> Streamed<'a> {
    /// The streamed labeling of `input` that its options ask for, under
    /// `max_memory` on each of `devices`.
    ///
    /// # Errors
    /// --alpha and --page, which a streamed input cannot take.
    pub(crate) fn new(
        input: &'a Input,
        max_memory: u64,
        devices: Vec<usize>,
    ) -> Result<Self, crate::Error> {
        if input.alpha {
            return Err(
                "--alpha: --max-gpu-memory streams gray TIFF pages and .npy arrays of bytes, \
                 which have no alpha channel; without --alpha, every nonzero pixel is foreground"
                    .into(),
            );
        }
        if let Some(page) = input.page {
            return Err(format!(
                "--page {page}: --max-gpu-memory streams every page of a TIFF (one page an \
                 image, several a volume); extract the page first, e.g. \
                 tifffile.imwrite('page.tif', tifffile.imread('{}', key={page}))",
                input.path.display()
            )
            .into());
        }
        Ok(Self {
            input: &input.path,
            connectivity: input.connectivity,
            algorithm: input.algorithm.as_deref(),
            max_memory,
            devices,
            threshold: input.threshold(),
            invert: input.invert,
        })
    }
}

/// The input opened for strips, and the labeler that streams it.
pub(crate) struct Opened {
    /// The file's values, as they are.
    source: Box<dyn PlaneSource>,
    /// Which of them are foreground.
    foreground: Foreground,
    pub(crate) shape: Shape,
    pub(crate) connectivity: Connectivity,
    pub(crate) labeler: StripLabeler,
}

impl Opened {
    /// Runs `work` on the input binarized: the file's bytes themselves
    /// where every nonzero value is foreground (no pass over them), else
    /// the bytes through the threshold as they are read.
    pub(crate) fn with_source<T>(&self, work: impl FnOnce(&dyn PlaneSource) -> T) -> T {
        if self.foreground.is_nonzero() {
            work(&*self.source)
        } else {
            work(&Binarized::new(&*self.source, self.foreground))
        }
    }
}

/// The files that strips are read from and written to, by extension.
#[derive(Clone, Copy)]
enum Streamable {
    Npy,
    Tiff,
}

impl Streamable {
    /// The format `path`'s extension (any case) names, if it is one.
    fn of(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "npy" => Some(Streamable::Npy),
            "tif" | "tiff" => Some(Streamable::Tiff),
            _ => None,
        }
    }
}

/// Opens the `.npy` or TIFF for strips and makes their labeler: the named
/// variant's backend, else the preferred one's (a GPU where one works), the
/// connectivity the fullest of the input's dimension unless given; then
/// decides which values are foreground (Otsu's threshold: one pass over the
/// input, said on stderr).
pub(crate) fn open(streamed: Streamed<'_>, task: Task) -> Result<Opened, crate::Error> {
    type Source = (Box<dyn PlaneSource>, Shape, ByteElement);
    let (source, shape, element): Source = match Streamable::of(streamed.input) {
        Some(Streamable::Npy) => {
            let source = NpySource::open(streamed.input)?;
            let (shape, element) = (source.shape(), source.element());
            (Box::new(source), shape, element)
        }
        Some(Streamable::Tiff) => {
            let source = TiffSource::open(streamed.input)?;
            let (shape, element) = (source.shape(), source.element());
            (Box::new(source), shape, element)
        }
        None => {
            return Err(format!(
                "{}: --max-gpu-memory streams a .npy (bool, uint8 or int8, C order) or a .tif / \
                 .tiff (8-bit or 1-bit gray pages) plane by plane; convert the input first \
                 (numpy.save, tifffile.imwrite)",
                streamed.input.display()
            )
            .into());
        }
    };
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
    let name = streamed.input.display();
    let foreground = Foreground::new(
        &*source,
        shape,
        element,
        streamed.threshold,
        streamed.invert,
    )
    .map_err(|e| match e {
        // A rule the values cannot take, as the in-core reader names it.
        ccl::Error::InvalidArgument(message) => {
            ccl::Error::InvalidArgument(format!("{name}: {message}"))
        }
        other => other,
    })?;
    if let (Threshold::Otsu, Some(t)) = (streamed.threshold, foreground.threshold()) {
        eprintln!("note: Otsu's threshold for {name} is {t}");
    }
    Ok(Opened {
        source,
        foreground,
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
    // Refused before any work: a wrong extension is a typo.
    let output = match output {
        Some(output) => match Streamable::of(output) {
            Some(format) => Some((output, format)),
            None => {
                return Err(format!(
                    "-o {}: --max-gpu-memory writes the labels plane by plane into a .npy or \
                     a .tif / .tiff",
                    output.display()
                )
                .into());
            }
        },
        None => None,
    };
    let opened = open(streamed, Task::Label)?;
    let (shape, connectivity, labeler) = (opened.shape, opened.connectivity, &opened.labeler);
    let wide = needs_wide_labels(shape);
    let report = opened.with_source(|source| {
        let label = |sink: &dyn Sink| label_into(labeler, shape, connectivity, source, sink, wide);
        match output {
            Some((output, Streamable::Npy)) => label(&NpySink::create(output, shape, wide)?),
            Some((output, Streamable::Tiff)) => label(&TiffSink::create(output, shape, wide)?),
            // The count needs only the first pass and the merge.
            None => labeler.count(shape, connectivity, source),
        }
    })?;
    let plural = if report.count == 1 { "" } else { "s" };
    out!(Stdout::lock(), "{} component{plural}", report.count)?;
    Ok(ExitCode::SUCCESS)
}

/// A sink of labels of either width, as the file formats are.
trait Sink: PlaneSink<u32> + PlaneSink<u64> {}

impl<S: PlaneSink<u32> + PlaneSink<u64>> Sink for S {}

/// Labels `source` into `sink`, 64-bit labels where `wide`.
fn label_into(
    labeler: &StripLabeler,
    shape: Shape,
    connectivity: Connectivity,
    source: &dyn PlaneSource,
    sink: &dyn Sink,
    wide: bool,
) -> ccl::Result<StripReport> {
    if wide {
        labeler.label::<u64>(shape, connectivity, source, sink)
    } else {
        labeler.label::<u32>(shape, connectivity, source, sink)
    }
}

/// `--max-gpu-memory`'s value ([`ccl_scale::parse_size`]).
pub(crate) fn parse_bytes(text: &str) -> Result<u64, String> {
    ccl_scale::parse_size(text).map_err(|e| e.to_string())
}
