//! `ccl gen`: writes a benchmark image or volume (docs/benchmark.md's MT19937
//! density / granularity generator) or a structured pattern; a size of
//! three sides (`WxHxD`) makes a volume.

use std::path::PathBuf;
use std::process::ExitCode;

use ccl_io::VolumeFormat;

use crate::args::{AnySize, Size, VolumeSize};
use crate::output::{Stdout, out};

#[derive(clap::Args)]
#[command(
    override_usage = "ccl gen --size <WxH|WxHxD> -d <D> -g <G> [--seed <SEED>] -o <OUT>\n       \
                      ccl gen --size <WxH|WxHxD> --pattern <KIND> -o <OUT>"
)]
pub(crate) struct Args {
    /// Image size (WxH), or volume size (WxHxD): a volume of g x g x g
    /// cells, or a volume pattern.
    #[arg(long, value_name = "WxH|WxHxD")]
    size: AnySize,
    /// Percent of cells set, 0..=100.
    #[arg(short, long, value_name = "D", required_unless_present = "pattern",
          value_parser = clap::value_parser!(u32).range(0..=100))]
    density: Option<u32>,
    /// Cell side in pixels (voxels), at least 1.
    #[arg(short, long, value_name = "G", required_unless_present = "pattern",
          value_parser = clap::value_parser!(u32).range(1..))]
    granularity: Option<u32>,
    /// MT19937 seed.
    #[arg(long, default_value_t = ccl_testdata::DEFAULT_SEED, conflicts_with = "pattern")]
    seed: u32,
    /// Draw this structured pattern instead (e.g. spiral, checkerboard; for
    /// a volume helix, hilbert3d, maze3d; an unknown name lists them all).
    #[arg(long, value_name = "KIND", conflicts_with_all = ["density", "granularity"])]
    pattern: Option<String>,
    /// Output file: an image .png, .pgm, .pbm, .tif or .tiff; a volume .npy
    /// (uint8 0 / 1, shape (depth, height, width)) or .tif / .tiff (one
    /// page a slice).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
}

/// What to draw.
enum Source<'a> {
    /// The pattern of this kind.
    Pattern(&'a str),
    /// docs/benchmark.md's random cells.
    Random { density: u32, granularity: u32 },
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let source = match (&args.pattern, args.density, args.granularity) {
        (Some(kind), _, _) => Source::Pattern(kind),
        (None, Some(density), Some(granularity)) => Source::Random {
            density,
            granularity,
        },
        // clap already requires both unless --pattern is given.
        (None, _, _) => return Err("give -d and -g, or --pattern".into()),
    };
    match args.size {
        AnySize::Image(size) => write_image(&args, size, source),
        AnySize::Volume(size) => write_volume(&args, size, source),
    }
}

/// Draws and writes an image.
fn write_image(args: &Args, size: Size, source: Source<'_>) -> Result<ExitCode, crate::Error> {
    let Size { width, height } = size;
    let image = match source {
        Source::Pattern(kind) => ccl_testdata::pattern(kind, width, height).map_err(|e| {
            other_kind(
                e,
                kind,
                ccl_testdata::pattern_kinds(),
                ccl_testdata::volume_pattern_kinds(),
            )
        })?,
        Source::Random {
            density,
            granularity,
        } => ccl_testdata::random_image(width, height, density, granularity, args.seed)?,
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

/// Draws and writes a volume.
fn write_volume(
    args: &Args,
    size: VolumeSize,
    source: Source<'_>,
) -> Result<ExitCode, crate::Error> {
    let VolumeSize {
        width,
        height,
        depth,
    } = size;
    // A wrong extension is refused before a large volume is drawn.
    VolumeFormat::of(&args.output)?;
    let volume = match source {
        Source::Pattern(kind) => {
            ccl_testdata::volume_pattern(kind, width, height, depth).map_err(|e| {
                other_kind(
                    e,
                    kind,
                    ccl_testdata::volume_pattern_kinds(),
                    ccl_testdata::pattern_kinds(),
                )
            })?
        }
        Source::Random {
            density,
            granularity,
        } => ccl_testdata::random_volume(width, height, depth, density, granularity, args.seed)?,
    };
    ccl_io::save_volume(&volume, &args.output)?;
    out!(
        Stdout::lock(),
        "wrote {}: {width}x{height}x{depth}, {} foreground voxels",
        args.output.display(),
        volume.view().foreground_count()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `error`, the generator's refusal of `kind`, with a hint where `kind` is
/// not one of the size's kinds (`own`) but one of the other kind's
/// (`others`): an image pattern asked at a volume's size, or the reverse.
fn other_kind(error: ccl_core::Error, kind: &str, own: &[&str], others: &[&str]) -> crate::Error {
    if own.contains(&kind) || !others.contains(&kind) {
        return error.into();
    }
    let (what, size) = if others == ccl_testdata::pattern_kinds() {
        ("an image", "WxH")
    } else {
        ("a volume", "WxHxD")
    };
    format!("{error} (`{kind}` is {what} pattern: give --size {size})").into()
}
