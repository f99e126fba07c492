//! `ccl verify`: every selected variant against the cpu-uf reference on
//! random, pattern and real images and the large worst cases of iterative
//! labelers, and — for the variants that label volumes — the volume
//! conformance kit (`ccl_testkit::volumes`) on random, pattern and
//! edge-shaped volumes; one line per variant, and how to reproduce the
//! first failure.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use ccl_core::{Algorithm, Connectivity, Task};
use ccl_testkit::cases::{Case, all_cases, random_cases, worst_cases};
use ccl_testkit::policy::{self, Decision};
use ccl_testkit::verify::{Expected, Failure, Variant};
use ccl_testkit::volumes::{
    VolumeCase, VolumeConformance, VolumeExpected, edge_volume_cases, pattern_volume_cases,
    random_volume_cases,
};

use crate::args::{join, parse_any_connectivity};
use crate::output::{Stdout, out};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Variant to verify (repeatable); default: every registered one.
    #[arg(short, long = "algorithm", value_name = "ALGO")]
    algorithms: Vec<String>,
    /// Connectivity to verify: 4 or 8 checks images only, 6, 18 or 26
    /// volumes only; default: every one (each variant in those it
    /// supports).
    #[arg(short, long, value_name = "4|8|6|18|26", value_parser = parse_any_connectivity)]
    connectivity: Option<Connectivity>,
    /// Number of random images, and of random volumes, besides every
    /// pattern and real image and every pattern and edge-shaped volume.
    #[arg(long, value_name = "N", default_value_t = 200)]
    cases: usize,
    /// Also the worst cases of iterative labelers (spirals, Hilbert curves,
    /// mazes, 1-pixel snakes, combs) as squares of side 256, 1024, 4096, …
    /// up to SIDE, and 2^k - 1 below it; 0 for none.
    #[arg(long, value_name = "SIDE", default_value_t = 1024)]
    worst_side: usize,
    /// Only the --cases random images and random volumes: no patterns, real
    /// images, worst cases or edge-shaped volumes (a short run, for slow
    /// checkers such as compute-sanitizer's racecheck).
    #[arg(long, conflicts_with = "worst_side")]
    random_only: bool,
    /// Only volumes: the variants that label volumes, in the volume
    /// connectivities each declares (6, 18, 26), on the host, into a reused
    /// buffer, on strided volumes and timed.
    #[arg(long, conflicts_with = "images")]
    volumes: bool,
    /// Only images (no volumes).
    #[arg(long)]
    images: bool,
}

/// A variant being verified and its tally.
struct Candidate {
    algorithm: &'static Algorithm,
    /// Its checks on images, if it is verified on any.
    images: Option<ImageChecks>,
    /// Its checks on volumes, if it is verified on any.
    volumes: Option<VolumeChecks>,
}

/// A variant's checks on images.
struct ImageChecks {
    variant: Variant,
    connectivities: Vec<Connectivity>,
    checks: usize,
    failures: usize,
    first_failure: Option<String>,
    reproduce: Option<String>,
}

/// A variant's checks on volumes: the kit keeps the tally.
struct VolumeChecks {
    kit: VolumeConformance,
    connectivities: Vec<Connectivity>,
    reproduce: Option<String>,
}

/// The line of a variant that is not verified, and whether that is a failure.
struct NotRun {
    name: &'static str,
    reason: String,
    failed: bool,
}

/// The connectivities to verify: the images' and the volumes'.
type Wanted = (Vec<Connectivity>, Vec<Connectivity>);

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let (image_wanted, volume_wanted) = wanted(&args)?;
    let selected: Vec<&'static Algorithm> = if args.algorithms.is_empty() {
        ccl::algorithms()
    } else {
        args.algorithms
            .iter()
            .map(|name| ccl::find(name))
            .collect::<Result<_, _>>()?
    };
    // A variant the user named must be verified: one that cannot run here
    // is a failure, not a skip.
    let named = !args.algorithms.is_empty();
    let mut candidates = Vec::new();
    let mut not_run = Vec::new();
    for algorithm in selected {
        match prepare(algorithm, &image_wanted, &volume_wanted, named) {
            Ok(candidate) => candidates.push(candidate),
            Err(skipped) => not_run.push(skipped),
        }
    }

    // Only a person watching wants a bar (long runs take minutes: the worst
    // cases at 4096² under an iterative labeler); logs and pipes get none.
    let progress = if std::io::stderr().is_terminal() {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::hidden()
    };
    progress.set_style(ProgressStyle::with_template(
        "{spinner} {prefix} {pos} {elapsed:>4}  {msg}",
    )?);
    progress.enable_steady_tick(Duration::from_millis(250));
    // Each image and volume is made, checked and dropped in turn: memory
    // does not grow with --cases.
    let mut images = 0;
    if candidates.iter().any(|c| c.images.is_some()) {
        progress.set_prefix("image");
        let cases: Box<dyn Iterator<Item = _>> = if args.random_only {
            Box::new(random_cases(args.cases))
        } else {
            Box::new(all_cases(args.cases).chain(worst_cases(args.worst_side)))
        };
        for case in cases {
            let case = case?;
            progress.set_message(case.source.to_string());
            check_case(&case, &image_wanted, &mut candidates)?;
            progress.inc(1);
            images += 1;
        }
    }
    let mut volumes = 0;
    if candidates.iter().any(|c| c.volumes.is_some()) {
        progress.set_prefix("volume");
        progress.set_position(0);
        let cases: Box<dyn Iterator<Item = _>> = if args.random_only {
            Box::new(random_volume_cases(args.cases))
        } else {
            Box::new(
                random_volume_cases(args.cases)
                    .chain(pattern_volume_cases())
                    .chain(edge_volume_cases()),
            )
        };
        for case in cases {
            let case = case?;
            progress.set_message(case.name.clone());
            check_volume_case(&case, &volume_wanted, &mut candidates)?;
            progress.inc(1);
            volumes += 1;
        }
    }
    progress.finish_and_clear();

    let width = candidates
        .iter()
        .map(|c| c.algorithm.name.len())
        .chain(not_run.iter().map(|n| n.name.len()))
        .max()
        .unwrap_or(0);
    let mut out = Stdout::lock();
    for c in &candidates {
        let name = c.algorithm.name;
        let mut checks = 0;
        let mut failures = 0;
        let mut scopes = Vec::new();
        let mut first = None;
        if let Some(i) = &c.images {
            checks += i.checks;
            failures += i.failures;
            scopes.push(format!(
                "{} x {} on {images} images",
                join(&i.connectivities),
                join(&i.variant.tasks())
            ));
            first = first.or(i.first_failure.clone());
        }
        if let Some(v) = &c.volumes {
            checks += v.kit.checks();
            failures += v.kit.failures().len();
            scopes.push(format!(
                "{} x {} on {volumes} volumes",
                join(&v.connectivities),
                join(&tasks(c.algorithm))
            ));
            first = first.or(v.kit.failures().first().cloned());
        }
        let scope = scopes.join("; ");
        match first {
            None => out!(out, "{name:<width$}  ok       {checks} checks ({scope})")?,
            Some(first) => out!(
                out,
                "{name:<width$}  FAILED   {failures} of {checks} checks ({scope}); first: {first}"
            )?,
        }
    }
    for n in &not_run {
        let status = if n.failed { "FAILED " } else { "skipped" };
        out!(out, "{:<width$}  {status}  {}", n.name, n.reason)?;
    }

    let first_failure = candidates.iter().find_map(|c| {
        c.images
            .as_ref()
            .and_then(|i| i.reproduce.as_ref())
            .or_else(|| c.volumes.as_ref().and_then(|v| v.reproduce.as_ref()))
    });
    if let Some(reproduce) = first_failure {
        out!(out, "reproduce the first failure: {reproduce}")?;
    }
    let failed = first_failure.is_some() || not_run.iter().any(|n| n.failed);
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The connectivities that `-c`, `--images` and `--volumes` ask for.
fn wanted(args: &Args) -> Result<Wanted, String> {
    match args.connectivity {
        Some(c) if c.dimensions() == 2 && args.volumes => Err(format!(
            "-c {c} is an image's connectivity; --volumes verifies volumes in 6, 18 or 26"
        )),
        Some(c) if c.dimensions() == 3 && args.images => Err(format!(
            "-c {c} is a volume's connectivity; --images verifies images in 4 or 8"
        )),
        Some(c) if c.dimensions() == 2 => Ok((vec![c], Vec::new())),
        Some(c) => Ok((Vec::new(), vec![c])),
        None => Ok((
            if args.volumes {
                Vec::new()
            } else {
                Connectivity::PLANE.to_vec()
            },
            if args.images {
                Vec::new()
            } else {
                Connectivity::VOLUME.to_vec()
            },
        )),
    }
}

/// The tasks `algorithm` performs, labeling first.
fn tasks(algorithm: &Algorithm) -> Vec<Task> {
    [Task::Label, Task::Analyze]
        .into_iter()
        .filter(|&t| algorithm.performs(t))
        .collect()
}

/// A variant ready to verify on images, volumes or both (each in the
/// wanted connectivities it supports), or why it is not verified (a
/// failure when it was `named` or must run here).
fn prepare(
    algorithm: &'static Algorithm,
    image_wanted: &[Connectivity],
    volume_wanted: &[Connectivity],
    named: bool,
) -> Result<Candidate, NotRun> {
    let not_run = |reason: String, failed: bool| NotRun {
        name: algorithm.name,
        reason,
        failed,
    };
    match policy::decide(algorithm) {
        Decision::Run => {}
        Decision::Skip(reason) => return Err(not_run(reason, named)),
        Decision::Fail(reason) => return Err(not_run(reason, true)),
    }
    let supported = |wanted: &[Connectivity]| -> Vec<Connectivity> {
        wanted
            .iter()
            .copied()
            .filter(|&c| algorithm.supports(c))
            .collect()
    };
    let (image_connectivities, volume_connectivities) =
        (supported(image_wanted), supported(volume_wanted));
    if image_connectivities.is_empty() && volume_connectivities.is_empty() {
        let reason = format!(
            "supports only {}-connectivity",
            join(algorithm.connectivities)
        );
        return Err(not_run(reason, named));
    }
    let images = if image_connectivities.is_empty() {
        None
    } else {
        let variant = Variant::new(algorithm).map_err(|e| not_run(e.to_string(), true))?;
        Some(ImageChecks {
            variant,
            connectivities: image_connectivities,
            checks: 0,
            failures: 0,
            first_failure: None,
            reproduce: None,
        })
    };
    let volumes = if volume_connectivities.is_empty() {
        None
    } else {
        let kit = VolumeConformance::new(algorithm).map_err(|e| not_run(e, true))?;
        Some(VolumeChecks {
            kit,
            connectivities: volume_connectivities,
            reproduce: None,
        })
    };
    Ok(Candidate {
        algorithm,
        images,
        volumes,
    })
}

/// Checks every candidate on one image, in every connectivity it verifies,
/// for every task it performs; the reference runs once per connectivity.
fn check_case(
    case: &Case,
    wanted: &[Connectivity],
    candidates: &mut [Candidate],
) -> ccl_core::Result<()> {
    let image = case.image.view();
    for &connectivity in wanted {
        let verifies = |c: &ImageChecks| c.connectivities.contains(&connectivity);
        if !candidates
            .iter()
            .any(|c| c.images.as_ref().is_some_and(verifies))
        {
            continue;
        }
        let expected = Expected::compute(&image, connectivity)?;
        for checks in candidates
            .iter_mut()
            .filter_map(|c| c.images.as_mut())
            .filter(|c| verifies(c))
        {
            for task in checks.variant.tasks() {
                checks.checks += 1;
                if let Err(failure) = checks.variant.check(task, &image, connectivity, &expected) {
                    checks.record(case, connectivity, task, failure);
                }
            }
        }
    }
    Ok(())
}

impl ImageChecks {
    /// Counts a failure, keeping the first one's words and the commands
    /// that reproduce it.
    fn record(&mut self, case: &Case, connectivity: Connectivity, task: Task, failure: Failure) {
        self.failures += 1;
        if self.first_failure.is_some() {
            return;
        }
        self.first_failure = Some(format!(
            "{}, {connectivity}-connectivity {task}: {failure}",
            case.source
        ));
        let name = self.variant.algorithm().name;
        self.reproduce = Some(case.source.reproduce(name, task, connectivity));
    }
}

/// Checks every candidate that verifies volumes on one volume by the kit;
/// the reference runs once per connectivity that some candidate verifies.
fn check_volume_case(
    case: &VolumeCase,
    wanted: &[Connectivity],
    candidates: &mut [Candidate],
) -> ccl_core::Result<()> {
    let mut expected = Vec::new();
    for &connectivity in wanted {
        if candidates.iter().any(|c| {
            c.volumes
                .as_ref()
                .is_some_and(|v| v.connectivities.contains(&connectivity))
        }) {
            expected.push((
                connectivity,
                VolumeExpected::compute(&case.volume.view(), connectivity)?,
            ));
        }
    }
    for candidate in candidates.iter_mut() {
        let name = candidate.algorithm.name;
        let Some(checks) = candidate.volumes.as_mut() else {
            continue;
        };
        // The kit checks each connectivity given that the variant supports.
        let had_failed = !checks.kit.failures().is_empty();
        checks.kit.check_with(case, &expected);
        if !had_failed && let Some(first) = checks.kit.failures().first() {
            checks.reproduce = Some(reproduce_volume(name, case, first, &checks.connectivities));
        }
    }
    Ok(())
}

/// The shell commands that rerun `variant` on the volume of `case`, whose
/// kit reported `failure`: `ccl gen` to write it (a random or pattern
/// volume), then `ccl label` or `ccl analyze` in the connectivity and task
/// the failure names; for a volume `gen` cannot write, the volume kit again.
fn reproduce_volume(
    variant: &str,
    case: &VolumeCase,
    failure: &str,
    connectivities: &[Connectivity],
) -> String {
    // The kit's failures read "…, {connectivity}-connectivity {task}: …".
    let named = connectivities.iter().find_map(|&c| {
        [Task::Label, Task::Analyze]
            .into_iter()
            .find(|task| failure.contains(&format!(" {c}-connectivity {task}:")))
            .map(|task| (c, task))
    });
    let (connectivity, task) = named.unwrap_or((
        connectivities
            .first()
            .copied()
            .unwrap_or(Connectivity::TwentySix),
        Task::Label,
    ));
    let file = "case.npy";
    match gen_volume_command(&case.name, file) {
        Some(generate) => {
            format!("{generate} && ccl {task} {file} -a {variant} -c {connectivity}")
        }
        None => format!("ccl verify -a {variant} --volumes -c {connectivity}"),
    }
}

/// The `ccl gen` command that writes the volume of a kit case named `name`
/// (`random WxHxD d=D g=G seed=S` or `pattern KIND-WxHxD`) to `file`, or
/// `None` for one it cannot write (an edge-shaped case, a side of 0).
fn gen_volume_command(name: &str, file: &str) -> Option<String> {
    let has_voxels = |size: &str| size.parse::<crate::args::VolumeSize>().is_ok();
    if let Some(rest) = name.strip_prefix("random ") {
        let mut words = rest.split_whitespace();
        let size = words.next()?;
        let mut value = |key: &str| {
            words
                .next()
                .and_then(|w| w.strip_prefix(key))
                .map(str::to_owned)
        };
        let (density, granularity, seed) = (value("d=")?, value("g=")?, value("seed=")?);
        return has_voxels(size).then(|| {
            format!("ccl gen --size {size} -d {density} -g {granularity} --seed {seed} -o {file}")
        });
    }
    let (kind, size) = name.strip_prefix("pattern ")?.rsplit_once('-')?;
    has_voxels(size).then(|| format!("ccl gen --pattern {kind} --size {size} -o {file}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kit_cases_become_gen_commands() {
        assert_eq!(
            gen_volume_command("random 17x9x11 d=31 g=2 seed=4", "c.npy").as_deref(),
            Some("ccl gen --size 17x9x11 -d 31 -g 2 --seed 4 -o c.npy")
        );
        assert_eq!(
            gen_volume_command("pattern maze3d-33x17x9", "c.npy").as_deref(),
            Some("ccl gen --pattern maze3d --size 33x17x9 -o c.npy")
        );
        assert_eq!(
            gen_volume_command("random 0x4x4 d=5 g=1 seed=0", "c.npy"),
            None
        );
        assert_eq!(gen_volume_command("edge 6x5x4 d=100", "c.npy"), None);
        // Every random and pattern case of the kit has a command.
        for case in random_volume_cases(12).chain(pattern_volume_cases()) {
            let case = case.unwrap();
            let (w, h, d) = (
                case.volume.width(),
                case.volume.height(),
                case.volume.depth(),
            );
            if w * h * d > 0 {
                assert!(
                    gen_volume_command(&case.name, "c.npy").is_some(),
                    "{}",
                    case.name
                );
            }
        }
    }

    #[test]
    fn a_volume_failure_is_reproduced_in_its_connectivity_and_task() {
        let case = random_volume_cases(1).next().unwrap().unwrap();
        let failure = format!(
            "x on {} (host, packed), 26-connectivity analyze: features differ",
            case.name
        );
        let all = Connectivity::VOLUME;
        let command = reproduce_volume("x", &case, &failure, &all);
        assert!(
            command.ends_with("&& ccl analyze case.npy -a x -c 26"),
            "{command}"
        );
        let failure = failure.replace("26-connectivity analyze", "6-connectivity label");
        let command = reproduce_volume("x", &case, &failure, &all);
        assert!(
            command.ends_with("ccl label case.npy -a x -c 6"),
            "{command}"
        );
    }
}
