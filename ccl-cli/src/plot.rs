//! `ccl plot`: a saved sweep's summary table and plots, as `ccl sweep`
//! prints and draws them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::output::{Stdout, StdoutError, out};
use ccl_bench::sweep::{self, Measurement};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// A sweep's CSV, as `ccl sweep` writes it.
    #[arg(value_name = "CSV")]
    csv: PathBuf,
    /// Folder for the plots [default: the CSV's folder].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let measurements = sweep::csv::read(&args.csv)?;
    if measurements.is_empty() {
        return Err(format!("{}: no measurements to plot", args.csv.display()).into());
    }
    let dir = args.out.unwrap_or_else(|| match args.csv.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    });
    let mut out = Stdout::lock();
    write_summary(&mut out, &measurements)?;
    write_plots(&mut out, &measurements, &dir)
}

/// The summary table of `measurements`, as a sweep prints it last.
pub(crate) fn write_summary(
    out: &mut Stdout,
    measurements: &[Measurement],
) -> Result<(), StdoutError> {
    if measurements.iter().any(|m| m.pattern.is_none()) {
        out.text(&sweep::summary::table(&sweep::summary::summarize(
            measurements,
        )))?;
    }
    out.text(&sweep::summary::pattern_table(measurements))
}

/// Draws the plots of `measurements` into `dir` and lists them on `out`.
pub(crate) fn write_plots(
    out: &mut Stdout,
    measurements: &[Measurement],
    dir: &Path,
) -> Result<ExitCode, crate::Error> {
    for path in sweep::plot::write(measurements, dir)? {
        out!(out, "wrote {}", path.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
