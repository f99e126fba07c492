//! `ccl label`: the component count, and optionally the canonical labels as
//! data (a 32-bit TIFF, a NumPy `.npy`) or as a colour PNG.

use std::path::PathBuf;
use std::process::ExitCode;

use ccl_core::Task;
use ccl_io::LabelFormat;

use crate::args::Input;
use crate::output::{Stdout, out};

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    input: Input,
    /// Write the canonical labels (0 background, 1..=N components), chosen
    /// by extension: .tif / .tiff, 32-bit unsigned gray; .npy, a NumPy
    /// uint32 array of shape (height, width); .png, a colour picture
    /// (background black; the first 262,143 labels all distinct colours).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    // Refused before any work: a wrong extension is a typo.
    if let Some(output) = &args.output {
        LabelFormat::of(output)?;
    }
    let (image, algorithm) = args.input.load(Task::Label)?;
    let labels = algorithm
        .labeler()?
        .label(&image.view(), args.input.connectivity)?
        .canonical();
    if let Some(output) = &args.output {
        ccl_io::save_labels(&labels, output)?;
    }
    let count = labels.component_count();
    out!(
        Stdout::lock(),
        "{count} component{}",
        if count == 1 { "" } else { "s" }
    )?;
    Ok(ExitCode::SUCCESS)
}
