//! `ccl updates`: counts the atomic feature updates of `ccl-cuda-flsl`'s
//! analyses, and their conflicts, on the sweep's MT19937 images over
//! density (Fig. 5 of the FLSL paper); writes them as CSV and plots them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;

use ccl_bench::updates::{self, Row};
use ccl_core::Connectivity;
use ccl_cuda_flsl::COUNTED_VARIANTS;

use crate::args::{Size, parse_connectivity};
use crate::output::{Stdout, out};

/// What to count, on which images, and where to write the results.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Variant to count (repeatable); default: every counted one.
    #[arg(short, long = "algorithm", value_name = "NAME",
          value_parser = PossibleValuesParser::new(COUNTED_VARIANTS.iter().copied()))]
    algorithms: Vec<String>,
    /// Connectivity; default: both.
    #[arg(short, long, value_name = "4|8", value_parser = parse_connectivity)]
    connectivity: Option<Connectivity>,
    /// Image size.
    #[arg(long, value_name = "WxH", default_value = "8192x8192")]
    size: Size,
    /// Densities in percent, comma separated [default: 0,5,...,100].
    #[arg(long, value_name = "D,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(0..=100))]
    densities: Vec<u32>,
    /// Granularity (cell side in pixels).
    #[arg(long, value_name = "G", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    granularity: u32,
    /// Folder for updates.csv and updates.svg.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
}

/// Counts every chosen variant in every connectivity on every density's
/// image, printing a line per count on stderr, then writes `updates.csv`
/// and `updates.svg` into `--out`. The first variant that cannot count
/// stops the command, its error prefixed by its name.
pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let Size { width, height } = args.size;
    ccl_core::check_size(width, height)?;
    let mut variants: Vec<&str> = Vec::new();
    for name in &args.algorithms {
        if !variants.contains(&name.as_str()) {
            variants.push(name);
        }
    }
    if variants.is_empty() {
        variants = COUNTED_VARIANTS.to_vec();
    }
    let connectivities = args
        .connectivity
        .map_or(Connectivity::PLANE.to_vec(), |c| vec![c]);
    let densities = if args.densities.is_empty() {
        ccl_bench::sweep::DENSITIES.to_vec()
    } else {
        args.densities
    };

    let mut rows = Vec::new();
    // Density outermost: each image (tens of MB at the default size) is
    // made once for both connectivities.
    for &density in &densities {
        let image = ccl_testdata::random_image(
            width,
            height,
            density,
            args.granularity,
            ccl_testdata::DEFAULT_SEED,
        )?;
        for &connectivity in &connectivities {
            for &variant in &variants {
                let counts = ccl_cuda_flsl::count_updates(variant, &image.view(), connectivity)
                    .map_err(|e| format!("{variant}: {e}"))?;
                let row = Row {
                    variant: variant.to_string(),
                    connectivity,
                    width,
                    height,
                    granularity: args.granularity,
                    density,
                    counts,
                };
                eprintln!(
                    "{variant} {connectivity}-conn d={density}: {} updates ({:.3e} per pixel), \
                     conflicts {:.3}",
                    counts.updates,
                    row.updates_per_pixel(),
                    row.conflicts()
                );
                rows.push(row);
            }
        }
    }
    // The CSV reads best connectivity by connectivity; the sort is stable,
    // so densities and variants keep their order within each.
    rows.sort_by_key(|r| r.connectivity);

    let mut out = Stdout::lock();
    let csv = updates::write(&rows, &args.out)?;
    out!(out, "wrote {} ({} rows)", csv.display(), rows.len())?;
    let plot = updates::plot::write(&rows, &args.out)?;
    out!(out, "wrote {}", plot.display())?;
    Ok(ExitCode::SUCCESS)
}
