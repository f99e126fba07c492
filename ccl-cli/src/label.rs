//! `ccl label`: the component count, and optionally the canonical labels as
//! data (a 32-bit TIFF, a NumPy `.npy`) or as a colour PNG.

use std::path::{Path, PathBuf};
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
    // Refused before any work: a wrong extension is a typo, and writing
    // over the input loses it.
    if let Some(output) = &args.output {
        LabelFormat::of(output)?;
        if same_file(&args.input.image, output) {
            return Err(format!(
                "-o {}: that is the input image, which the labels would overwrite; name \
                 another file",
                output.display()
            )
            .into());
        }
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
