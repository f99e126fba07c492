//! `ccl verify`: every selected variant against the cpu-uf reference on
//! random, pattern and real images and the large worst cases of iterative
//! labelers; one line per variant, and how to
//! reproduce the first failure.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use ccl_core::{Algorithm, Connectivity, Task};
use ccl_testkit::cases::{Case, all_cases, random_cases, worst_cases};
use ccl_testkit::policy::{self, Decision};
use ccl_testkit::verify::{Expected, Failure, Variant};

use crate::args::{join, parse_connectivity};
use crate::output::{Stdout, out};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Variant to verify (repeatable); default: every registered one.
    #[arg(short, long = "algorithm", value_name = "ALGO")]
    algorithms: Vec<String>,
    /// Connectivity to verify; default: both (each variant in those it supports).
    #[arg(short, long, value_name = "4|8", value_parser = parse_connectivity)]
    connectivity: Option<Connectivity>,
    /// Number of random images, besides every pattern and real image.
    #[arg(long, value_name = "N", default_value_t = 200)]
    cases: usize,
    /// Also the worst cases of iterative labelers (spirals, Hilbert curves,
    /// mazes, 1-pixel snakes, combs) as squares of side 256, 1024, 4096, …
    /// up to SIDE, and 2^k - 1 below it; 0 for none.
    #[arg(long, value_name = "SIDE", default_value_t = 1024)]
    worst_side: usize,
    /// Only the --cases random images: no patterns, real images or worst
    /// cases (a short run, for slow checkers such as compute-sanitizer's
    /// racecheck).
    #[arg(long, conflicts_with = "worst_side")]
    random_only: bool,
}

/// A variant being verified and its tally.
struct Candidate {
    variant: Variant,
    connectivities: Vec<Connectivity>,
    checks: usize,
    failures: usize,
    first_failure: Option<String>,
    reproduce: Option<String>,
}

/// The line of a variant that is not verified, and whether that is a failure.
struct NotRun {
    name: &'static str,
    reason: String,
    failed: bool,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let selected: Vec<&'static Algorithm> = if args.algorithms.is_empty() {
        ccl::algorithms()
    } else {
        args.algorithms
            .iter()
            .map(|name| ccl::find(name))
            .collect::<Result<_, _>>()?
    };
    let wanted = args
        .connectivity
        .map_or(Connectivity::PLANE.to_vec(), |c| vec![c]);
    // A variant the user named must be verified: one that cannot run here
    // is a failure, not a skip.
    let named = !args.algorithms.is_empty();
    let mut candidates = Vec::new();
    let mut not_run = Vec::new();
    for algorithm in selected {
        match prepare(algorithm, &wanted, named) {
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
        "{spinner} image {pos} {elapsed:>4}  {msg}",
    )?);
    progress.enable_steady_tick(Duration::from_millis(250));
    // Each image is made, checked and dropped in turn: memory does not
    // grow with --cases.
    let mut images = 0;
    let cases: Box<dyn Iterator<Item = _>> = if args.random_only {
        Box::new(random_cases(args.cases))
    } else {
        Box::new(all_cases(args.cases).chain(worst_cases(args.worst_side)))
    };
    for case in cases {
        let case = case?;
        progress.set_message(case.source.to_string());
        check_case(&case, &wanted, &mut candidates)?;
        progress.inc(1);
        images += 1;
    }
    progress.finish_and_clear();

    let width = candidates
        .iter()
        .map(|c| c.variant.algorithm().name.len())
        .chain(not_run.iter().map(|n| n.name.len()))
        .max()
        .unwrap_or(0);
    let mut out = Stdout::lock();
    for c in &candidates {
        let name = c.variant.algorithm().name;
        let scope = format!(
            "{} x {} on {} images",
            join(&c.connectivities),
            join(&c.variant.tasks()),
            images
        );
        match &c.first_failure {
            None => out!(
                out,
                "{name:<width$}  ok       {} checks ({scope})",
                c.checks
            )?,
            Some(first) => out!(
                out,
                "{name:<width$}  FAILED   {} of {} checks ({scope}); first: {first}",
                c.failures,
                c.checks
            )?,
        }
    }
    for n in &not_run {
        let status = if n.failed { "FAILED " } else { "skipped" };
        out!(out, "{:<width$}  {status}  {}", n.name, n.reason)?;
    }

    let first_failure = candidates.iter().find_map(|c| c.reproduce.as_ref());
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

/// A variant ready to verify, or why it is not verified (a failure when it
/// was `named` or must run here).
fn prepare(
    algorithm: &'static Algorithm,
    wanted: &[Connectivity],
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
    let connectivities: Vec<Connectivity> = wanted
        .iter()
        .copied()
        .filter(|&c| algorithm.supports(c))
        .collect();
    if connectivities.is_empty() {
        let reason = format!(
            "supports only {}-connectivity",
            join(algorithm.connectivities)
        );
        return Err(not_run(reason, named));
    }
    let variant = Variant::new(algorithm).map_err(|e| not_run(e.to_string(), true))?;
    Ok(Candidate {
        variant,
        connectivities,
        checks: 0,
        failures: 0,
        first_failure: None,
        reproduce: None,
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
        if !candidates
            .iter()
            .any(|c| c.connectivities.contains(&connectivity))
        {
            continue;
        }
        let expected = Expected::compute(&image, connectivity)?;
        for candidate in candidates
            .iter_mut()
            .filter(|c| c.connectivities.contains(&connectivity))
        {
            for task in candidate.variant.tasks() {
                candidate.checks += 1;
                if let Err(failure) = candidate
                    .variant
                    .check(task, &image, connectivity, &expected)
                {
                    candidate.record(case, connectivity, task, failure);
                }
            }
        }
    }
    Ok(())
}

impl Candidate {
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
