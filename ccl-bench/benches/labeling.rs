//! Criterion benches of every available registered variant on the benchmark
//! random images, in each task and connectivity it supports.
//!
//! A variant's timed form loads each image once; an iteration is one run.
//! CPU variants are timed by criterion's wall clock; CUDA variants by the
//! CUDA-event stage times their runs report (`iter_custom`), as the sweep
//! times them, so that host-side launch overhead does not count.
//!
//! `cargo bench -p ccl-bench` times 1024×1024 images. `cargo test --benches`
//! runs every bench once, on small images, so that CI checks them in seconds.

use std::time::Duration;

use ccl_core::{Algorithm, Backend, Connectivity, Task, TimedRun};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Densities of the images, below and at 4-connectivity's percolation.
const DENSITIES: [u32; 2] = [30, 60];
/// Granularities of the images.
const GRANULARITIES: [u32; 2] = [1, 4];
/// Image side when timing, and when only testing that the benches run.
const SIDE: usize = 1024;
const TEST_SIDE: usize = 64;

/// Whether criterion runs each bench once as a test: cargo passes `--bench`
/// only to `cargo bench`, and `--test` asks for test mode even then.
/// (`cfg!(test)` is false in bench targets either way.)
fn test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test")
}

/// The timed form of every variant that can run here; the others are
/// listed on stderr with the reason.
fn runners() -> Vec<(&'static Algorithm, Box<dyn TimedRun>)> {
    ccl::algorithms()
        .into_iter()
        .filter_map(
            |algorithm| match algorithm.probe().and_then(|()| algorithm.timed()) {
                Ok(runner) => Some((algorithm, runner)),
                Err(reason) => {
                    eprintln!("skipped {}: {reason}", algorithm.name);
                    None
                }
            },
        )
        .collect()
}

/// The sum of a run's stage times.
fn event_time(stages: &[ccl_core::StageTime]) -> Duration {
    Duration::from_secs_f64(stages.iter().map(|s| s.ms).sum::<f64>() / 1e3)
}

fn labeling(c: &mut Criterion) {
    let side = if test_mode() { TEST_SIDE } else { SIDE };
    let mut runners = runners();
    for granularity in GRANULARITIES {
        for density in DENSITIES {
            let image = ccl_testdata::random_image(
                side,
                side,
                density,
                granularity,
                ccl_testdata::DEFAULT_SEED,
            )
            .expect("a benchmark image of a valid size");
            let mut group = c.benchmark_group(format!("{side}x{side}-d{density}-g{granularity}"));
            // Reported as elements per second: pixels per second.
            group.throughput(Throughput::Elements((side * side) as u64));
            for (algorithm, runner) in &mut runners {
                runner
                    .load(&image.view())
                    .unwrap_or_else(|e| panic!("{} cannot load the image: {e}", algorithm.name));
                for task in [Task::Label, Task::Analyze] {
                    for connectivity in Connectivity::PLANE {
                        if !algorithm.performs(task) || !algorithm.supports(connectivity) {
                            continue;
                        }
                        let mut run = || {
                            runner.run(task, connectivity).unwrap_or_else(|e| {
                                panic!("{} {task} {connectivity}: {e}", algorithm.name)
                            })
                        };
                        let id = format!("{}/{task}/{connectivity}conn", algorithm.name);
                        match algorithm.backend {
                            Backend::Cpu => group.bench_function(id, |b| b.iter(&mut run)),
                            Backend::Cuda => group.bench_function(id, |b| {
                                b.iter_custom(|iters| (0..iters).map(|_| event_time(&run())).sum())
                            }),
                        };
                    }
                }
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    // Shorter than criterion's 3 s + 5 s: a run takes milliseconds at most.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = labeling
}
criterion_main!(benches);
