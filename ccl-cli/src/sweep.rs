//! `ccl sweep`: times variants over docs/benchmark.md's densities and
//! granularities, or on structured patterns by size (`--pattern`), checks
//! every result against cpu-uf, prints the summary table (or the pattern
//! table), writes every measurement as CSV and draws the plots; with
//! `--volume`, times the variants that label volumes on random volumes in
//! 6-, 18- and 26-connectivity, checked against cpu-rle, and writes their
//! CSV and summary.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use ccl_bench::sweep::{self, Config};
use ccl_bench::volume_sweep::{self, VolumeConfig};
use ccl_core::{Algorithm, Connectivity, Task};

use crate::args::{Size, VolumeSize, join, parse_any_connectivity};
use crate::output::{Stdout, out};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Variant to time (repeatable); default: every available one.
    #[arg(short, long = "algorithm", value_name = "ALGO")]
    algorithms: Vec<String>,
    /// Connectivity: 4 or 8, or with --volume 6, 18 or 26; default: every
    /// one of the sweep's kind (each variant in those it supports).
    #[arg(short, long, value_name = "4|8|6|18|26", value_parser = parse_any_connectivity)]
    connectivity: Option<Connectivity>,
    /// Image size [default: 2048x2048, or 512x512 with --quick].
    #[arg(long, value_name = "WxH")]
    size: Option<Size>,
    /// Time random volumes of this size instead of images, in 6-, 18- and
    /// 26-connectivity, every answer checked against cpu-rle; writes
    /// volume-sweep.csv and summary.txt, no plots [default size:
    /// 512x512x512, or 96x96x96 with --quick].
    #[arg(long, value_name = "WxHxD", num_args = 0..=1,
          conflicts_with_all = ["size", "patterns", "sizes"])]
    volume: Option<Option<VolumeSize>>,
    /// A short sweep: 512x512 images (96x96x96 volumes), 3 repetitions.
    #[arg(long)]
    quick: bool,
    /// Timed runs per image (or volume), after one warm-up run [default: 10,
    /// or 3 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    reps: Option<u32>,
    /// Densities in percent, comma separated [default: 0,5,...,100; with
    /// --volume 5,10,14,20,31,40,50,60,70,80].
    #[arg(long, value_name = "D,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(0..=100))]
    densities: Vec<u32>,
    /// Granularities (cell sides in pixels, or voxels with --volume), comma
    /// separated [default: 1,4,16].
    #[arg(long, value_name = "G,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(1..))]
    granularities: Vec<u32>,
    /// Time structured patterns instead of random images, comma separated
    /// (e.g. spiral,hilbert,maze; an unknown name lists them), as squares
    /// of each side of --sizes.
    #[arg(long = "pattern", value_name = "KIND,...", value_delimiter = ',',
          conflicts_with_all = ["densities", "granularities", "size"])]
    patterns: Vec<String>,
    /// Sides of the pattern images, comma separated [default: 256,512,1024,2048,4096,8192].
    #[arg(long, value_name = "N,...", value_delimiter = ',', requires = "patterns",
          value_parser = clap::value_parser!(u32).range(1..))]
    sizes: Vec<u32>,
    /// What to time: labeling (CCL), analysis (CCA) or both.
    #[arg(long, value_enum, default_value_t = Tasks::Both)]
    task: Tasks,
    /// Folder for sweep.csv and the plots (with --volume, volume-sweep.csv
    /// and summary.txt).
    #[arg(long, value_name = "DIR", default_value = "target/sweep")]
    out: PathBuf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Tasks {
    /// Labels only (CCL).
    #[value(alias = "ccl")]
    Label,
    /// The seven features, no label image (CCA).
    #[value(alias = "cca")]
    Analyze,
    /// Both, timed separately.
    Both,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let tasks = match args.task {
        Tasks::Label => vec![Task::Label],
        Tasks::Analyze => vec![Task::Analyze],
        Tasks::Both => vec![Task::Label, Task::Analyze],
    };
    if let Some(size) = args.volume {
        return run_volume(args, size, tasks);
    }
    let connectivities = match args.connectivity {
        None => Connectivity::PLANE.to_vec(),
        Some(c) if c.dimensions() == 2 => vec![c],
        Some(c) => {
            return Err(format!(
                "{c}-connectivity is for volumes: add --volume [WxHxD] (an image sweep takes 4 or 8)"
            )
            .into());
        }
    };
    let default_size = if args.quick { 512 } else { 2048 };
    let size = args.size.unwrap_or(Size {
        width: default_size,
        height: default_size,
    });
    ccl_core::check_size(size.width, size.height)?;
    // Named patterns are checked before the variants are probed.
    let patterns = args
        .patterns
        .iter()
        .map(|kind| pattern_kind(kind))
        .collect::<Result<Vec<_>, _>>()?;
    let variants = select(&args.algorithms, &tasks, &connectivities)?;
    let config = Config {
        reps: args
            .reps
            .map_or(if args.quick { 3 } else { 10 }, |r| r as usize),
        tasks,
        connectivities,
        ..Config::new(size.width, size.height)
    };
    let config = Config {
        densities: if args.densities.is_empty() {
            config.densities
        } else {
            args.densities
        },
        granularities: if args.granularities.is_empty() {
            config.granularities
        } else {
            args.granularities
        },
        ..config
    };
    let config = Config {
        patterns,
        sides: if args.sizes.is_empty() {
            PATTERN_SIDES.to_vec()
        } else {
            args.sizes.iter().map(|&side| side as usize).collect()
        },
        ..config
    };
    for &side in &config.sides {
        ccl_core::check_size(side, side)?;
    }
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    let images = if config.patterns.is_empty() {
        format!(
            "{}x{}, densities {}, g {}",
            config.width,
            config.height,
            join(&config.densities),
            join(&config.granularities)
        )
    } else {
        format!(
            "patterns {} at sides {}",
            config.patterns.join(","),
            join(&config.sides)
        )
    };
    // Created before anything is timed: a folder that cannot be written
    // fails now, and each image's rows are saved as soon as they are known.
    let mut csv = sweep::csv::CsvWriter::create(&args.out)?;
    eprintln!(
        "sweep: {images}, {} reps after a warm-up; {}",
        config.reps,
        names.join(", ")
    );

    let images = config.sources().len();
    // Only a person watching wants a bar; logs and pipes get none.
    let progress = if std::io::stderr().is_terminal() {
        ProgressBar::new(images as u64)
    } else {
        ProgressBar::hidden()
    };
    progress.set_style(ProgressStyle::with_template(
        "image {pos}/{len} {bar:30} {elapsed:>4}  {msg}",
    )?);
    // Large images take seconds each: the elapsed time keeps moving.
    progress.enable_steady_tick(Duration::from_millis(250));
    let measurements = sweep::run(
        &config,
        &variants,
        |image| {
            progress.inc(1);
            progress.set_message(image.to_string());
        },
        |rows| csv.append(rows),
    );
    progress.finish_and_clear();
    let measurements = measurements?;

    let mut out = Stdout::lock();
    crate::plot::write_summary(&mut out, &measurements)?;
    out!(
        out,
        "wrote {} ({} rows)",
        csv.path().display(),
        measurements.len()
    )?;
    crate::plot::write_plots(&mut out, &measurements, &args.out)
}

/// The side of a volume sweep's cubes with --quick: 96³ ≈ 0.9 M voxels,
/// small enough for a short sweep on a CPU, large enough that g = 16 still
/// has 6³ cells.
const QUICK_SIDE: usize = 96;

/// `ccl sweep --volume`: the volume sweep of `size` (or the default cube).
fn run_volume(
    args: Args,
    size: Option<VolumeSize>,
    tasks: Vec<Task>,
) -> Result<ExitCode, crate::Error> {
    let connectivities = match args.connectivity {
        None => Connectivity::VOLUME.to_vec(),
        Some(c) if c.dimensions() == 3 => vec![c],
        Some(c) => {
            return Err(format!(
                "{c}-connectivity is for images; a volume sweep (--volume) takes 6, 18 or 26"
            )
            .into());
        }
    };
    let side = if args.quick {
        QUICK_SIDE
    } else {
        volume_sweep::SIDE
    };
    let size = size.unwrap_or(VolumeSize {
        width: side,
        height: side,
        depth: side,
    });
    ccl_core::check_volume_size(size.width, size.height, size.depth)?;
    let variants = select(&args.algorithms, &tasks, &connectivities)?;
    let defaults = VolumeConfig::new(size.width, size.height, size.depth);
    let config = VolumeConfig {
        densities: if args.densities.is_empty() {
            defaults.densities.clone()
        } else {
            args.densities
        },
        granularities: if args.granularities.is_empty() {
            defaults.granularities.clone()
        } else {
            args.granularities
        },
        reps: args
            .reps
            .map_or(if args.quick { 3 } else { 10 }, |r| r as usize),
        tasks,
        connectivities,
        ..defaults
    };
    // Created before anything is timed, as the image sweep's CSV.
    let mut csv = volume_sweep::csv::VolumeCsvWriter::create(&args.out)?;
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    eprintln!(
        "volume sweep: {}x{}x{}, densities {}, g {}, {} reps after a warm-up; {}; answers checked against {}",
        config.width,
        config.height,
        config.depth,
        join(&config.densities),
        join(&config.granularities),
        config.reps,
        names.join(", "),
        volume_sweep::REFERENCE
    );
    let volumes = config.sources().len();
    let progress = if std::io::stderr().is_terminal() {
        ProgressBar::new(volumes as u64)
    } else {
        ProgressBar::hidden()
    };
    progress.set_style(ProgressStyle::with_template(
        "volume {pos}/{len} {bar:30} {elapsed:>4}  {msg}",
    )?);
    progress.enable_steady_tick(Duration::from_millis(250));
    let measurements = volume_sweep::run(
        &config,
        &variants,
        |volume| {
            progress.inc(1);
            progress.set_message(volume.to_string());
        },
        |rows| csv.append(rows),
    );
    progress.finish_and_clear();
    let measurements = measurements?;

    let summary = volume_sweep::summary::table(&volume_sweep::summary::summarize(&measurements));
    let mut out = Stdout::lock();
    out.text(&summary)?;
    let path = volume_sweep::summary::write(&args.out, &summary)?;
    out!(
        out,
        "wrote {} ({} rows)",
        csv.path().display(),
        measurements.len()
    )?;
    out!(out, "wrote {}", path.display())?;
    Ok(ExitCode::SUCCESS)
}

/// The sides of a pattern sweep unless told: Kasagi et al.'s 256 … 2048
/// and on to the protocol's 8192.
const PATTERN_SIDES: [usize; 6] = [256, 512, 1024, 2048, 4096, 8192];

/// The pattern kind named `name`, or an error listing the known ones.
fn pattern_kind(name: &str) -> Result<&'static str, crate::Error> {
    ccl_testdata::pattern_kinds()
        .iter()
        .copied()
        .find(|&kind| kind == name)
        .ok_or_else(|| {
            format!(
                "unknown pattern `{name}`; known patterns: {}",
                ccl_testdata::pattern_kinds().join(", ")
            )
            .into()
        })
}

/// The variants named (each must run here and perform one of `tasks` in one
/// of `connectivities`), or every available variant that does, listing
/// those skipped on stderr.
fn select(
    names: &[String],
    tasks: &[Task],
    connectivities: &[Connectivity],
) -> Result<Vec<&'static Algorithm>, crate::Error> {
    if !names.is_empty() {
        return names
            .iter()
            .map(|name| {
                let algorithm = ccl::find(name)?;
                // A labeler in a sweep of both tasks is timed in the one it does.
                if !tasks.iter().any(|&t| algorithm.performs(t)) {
                    algorithm.check_task(tasks[0])?;
                }
                if !connectivities.iter().any(|&c| algorithm.supports(c)) {
                    algorithm.check_connectivity(connectivities[0])?;
                }
                algorithm.probe()?;
                Ok(algorithm)
            })
            .collect();
    }
    let mut chosen = Vec::new();
    for algorithm in ccl::algorithms() {
        let relevant = tasks.iter().any(|&t| algorithm.performs(t))
            && connectivities.iter().any(|&c| algorithm.supports(c));
        if !relevant {
            continue;
        }
        match algorithm.probe() {
            Ok(()) => chosen.push(algorithm),
            Err(reason) => eprintln!("skipped {}: {reason}", algorithm.name),
        }
    }
    if chosen.is_empty() {
        return Err("no available variant does what was asked (`ccl list` shows them)".into());
    }
    Ok(chosen)
}
