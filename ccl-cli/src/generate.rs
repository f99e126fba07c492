//! `ccl gen`: writes a benchmark image (docs/benchmark.md's MT19937 density /
//! granularity generator) or a structured pattern.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::args::Size;
use crate::output::{Stdout, out};

#[derive(clap::Args)]
#[command(
    override_usage = "ccl gen --size <WxH> -d <D> -g <G> [--seed <SEED>] -o <OUT>\n       \
                      ccl gen --size <WxH> --pattern <KIND> -o <OUT>"
)]
pub(crate) struct Args {
    /// Image size.
    #[arg(long, value_name = "WxH")]
    size: Size,
    /// Percent of cells set, 0..=100.
    #[arg(short, long, value_name = "D", required_unless_present = "pattern",
          value_parser = clap::value_parser!(u32).range(0..=100))]
    density: Option<u32>,
    /// Cell side in pixels, at least 1.
    #[arg(short, long, value_name = "G", required_unless_present = "pattern",
          value_parser = clap::value_parser!(u32).range(1..))]
    granularity: Option<u32>,
    /// MT19937 seed.
    #[arg(long, default_value_t = ccl_testdata::DEFAULT_SEED, conflicts_with = "pattern")]
    seed: u32,
    /// Draw this structured pattern instead (e.g. spiral, checkerboard; an
    /// unknown name lists them all).
    #[arg(long, value_name = "KIND", conflicts_with_all = ["density", "granularity"])]
    pattern: Option<String>,
    /// Output file: .png, .pgm, .pbm, .tif or .tiff.
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let Size { width, height } = args.size;
    let image = match (&args.pattern, args.density, args.granularity) {
        (Some(kind), _, _) => ccl_testdata::pattern(kind, width, height)?,
        (None, Some(density), Some(granularity)) => {
            ccl_testdata::random_image(width, height, density, granularity, args.seed)?
        }
        // clap already requires both unless --pattern is given.
        (None, _, _) => return Err("give -d and -g, or --pattern".into()),
    };
    ccl_io::save_image(&image, &args.output)?;
    out!(
        Stdout::lock(),
        "wrote {}: {width}x{height}, {} foreground pixels",
        args.output.display(),
        image.view().foreground_count()
    )?;
    Ok(ExitCode::SUCCESS)
}
