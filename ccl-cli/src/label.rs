//! `ccl label`: the component count, and optionally the canonical labels as
//! data (a 32-bit TIFF, a NumPy `.npy`) or, for an image, as a colour PNG;
//! of an image or of a volume (a TIFF stack, a 3-D `.npy`), which the
//! connectivity or the file says ([`crate::input`]). The clean-up options
//! (`--min-size`, `--max-size`, `--largest`) keep some components and
//! number them again ([`ccl_core::Filter`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ccl_core::{Filter, Task};
use ccl_io::{LabelFormat, VolumeFormat};

use crate::input::{Data, Input, Loaded};
use crate::output::{Stdout, out};

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    input: Input,
    /// Write the canonical labels (0 background, 1..=N components), chosen
    /// by extension: .tif / .tiff, 32-bit unsigned gray (a volume: one page
    /// a slice); .npy, a NumPy uint32 array of shape (height, width), or
    /// (depth, height, width) for a volume; .png, a colour picture of an
    /// image's labels (background black; the first 262,143 labels all
    /// distinct colours). With --max-gpu-memory, .npy or .tif / .tiff,
    /// written plane by plane (uint64 past 2^32 − 2 pixels).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Keep only components of at least this many pixels (voxels): cc3d's
    /// `dust` threshold.
    #[arg(long, value_name = "PIXELS")]
    min_size: Option<u32>,
    /// Keep only components of at most this many pixels (voxels).
    #[arg(long, value_name = "PIXELS")]
    max_size: Option<u32>,
    /// Of the components kept by size, keep the K largest (among equal
    /// sizes, the first in raster order); the count and the labels are
    /// those of what is kept, numbered 1..=K in raster order.
    #[arg(long, value_name = "K")]
    largest: Option<u32>,
    /// Strips streamed through the GPU, for inputs past its memory.
    #[command(flatten)]
    strips: crate::strips::StripArgs,
    /// Read the input as a class map, a .npy of integers (2-D or 3-D; a
    /// segmentation's classes, an atlas): neighbours of equal nonzero value
    /// are connected, each class's components labeled apart (cc3d's
    /// multilabel labeling); prints the components and classes.
    #[arg(long, conflicts_with_all = ["max_gpu_memory", "min_size", "max_size", "largest"])]
    classes: bool,
    /// With --classes: write the class of every label as CSV (label,class).
    #[arg(long, value_name = "CSV", requires = "classes")]
    class_table: Option<PathBuf>,
}

impl Args {
    /// The clean-up the options ask for.
    fn filter(&self) -> Result<Filter, crate::Error> {
        let all = Filter::default();
        let filter = Filter {
            min_size: self.min_size.unwrap_or(all.min_size),
            max_size: self.max_size.unwrap_or(all.max_size),
            largest: self.largest,
            ..all
        };
        filter
            .check()
            .map_err(|e| format!("--min-size / --max-size: {e}"))?;
        Ok(filter)
    }
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let filter = args.filter()?;
    if args.classes {
        let input = &args.input;
        if input.threshold.is_some() || input.otsu || input.invert || input.alpha {
            return Err(
                "--classes reads the values as classes; --threshold, --otsu, --invert \
                        and --alpha binarize a mask"
                    .into(),
            );
        }
        if let Some(output) = &args.output
            && same_file(&input.path, output)
        {
            return Err(format!("-o {}: that is the input", output.display()).into());
        }
        return crate::classes::run(crate::classes::Classes {
            input: &input.path,
            output: args.output.as_deref(),
            class_table: args.class_table.as_deref(),
            connectivity: input.connectivity,
            max_pixels: input.max_pixels,
        });
    }
    if let Some(max_memory) = args.strips.max_gpu_memory {
        if filter != Filter::default() {
            return Err(
                "--min-size, --max-size and --largest need the whole label image; \
                        --max-gpu-memory streams it"
                    .into(),
            );
        }
        if let Some(output) = &args.output
            && same_file(&args.input.path, output)
        {
            return Err(format!("-o {}: that is the input", output.display()).into());
        }
        let streamed = crate::strips::Streamed::new(&args.input, max_memory, args.strips.devices)?;
        return crate::strips::label(streamed, args.output.as_deref());
    }
    let plan = args.input.plan()?;
    // Refused before any work: a wrong extension is a typo, and writing
    // over the input loses it.
    if let Some(output) = &args.output {
        match plan.dimensions() {
            Some(3) => {
                VolumeFormat::of(output)?;
            }
            Some(_) => {
                LabelFormat::of(output)?;
            }
            // Until the input is read, either kind's extension may do.
            None => {
                if VolumeFormat::of(output).is_err() {
                    LabelFormat::of(output)?;
                }
            }
        }
        if same_file(&args.input.path, output) {
            let kind = if plan.dimensions() == Some(3) {
                "volume"
            } else {
                "image"
            };
            return Err(format!(
                "-o {}: that is the input {kind}, which the labels would overwrite; name \
                 another file",
                output.display()
            )
            .into());
        }
    }
    let Loaded {
        data,
        connectivity,
        algorithm,
    } = args.input.load(plan, Task::Label)?;
    let mut labeler = algorithm.labeler()?;
    let plural = |count: usize| if count == 1 { "" } else { "s" };
    match data {
        Data::Image(image) => {
            let labels = labeler.label(&image.view(), connectivity)?.canonical();
            let labels = filter.apply_to_image(labels)?;
            if let Some(output) = &args.output {
                ccl_io::save_labels(&labels, output)?;
            }
            let count = labels.component_count();
            out!(Stdout::lock(), "{count} component{}", plural(count))?;
        }
        Data::Volume(volume) => {
            let labels = labeler
                .label_volume(&volume.view(), connectivity)?
                .into_canonical();
            let labels = filter.apply_to_volume(labels)?;
            if let Some(output) = &args.output {
                ccl_io::save_volume_labels(&labels, output)?;
            }
            let count = labels.component_count();
            out!(
                Stdout::lock(),
                "{count} component{} in a {}x{}x{} volume",
                plural(count),
                volume.width(),
                volume.height(),
                volume.depth()
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether `input` and `output` name one existing file: by device and inode
/// on Unix (which sees through other spellings, symbolic and hard links),
/// else by canonical path. Standard input and an output that does not exist
/// yet are never the input.
fn same_file(input: &Path, output: &Path) -> bool {
    if input == Path::new("-") {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(input), std::fs::metadata(output)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (input.canonicalize(), output.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}
