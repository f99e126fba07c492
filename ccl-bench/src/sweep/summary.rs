//! The summary of a sweep: mean throughput over the densities per variant,
//! connectivity, task and granularity (the summary the HA and FLSL papers give), how
//! much slower the percolation threshold is than the mean, and, on its own,
//! the throughput on the all-white image (d = 100), which the papers report
//! apart from the mean; and, for pattern sweeps, the milliseconds per image
//! that Kasagi et al. tabulate ([`pattern_table`]).

use std::fmt::Write;

use ccl_core::{Connectivity, Task};

use super::plot::distinct;
use super::{Measurement, median};

/// The density of the all-white image: every cell set, whatever the
/// granularity.
pub const ALL_WHITE: u32 = 100;

/// A sweep's summary: the means table, and the all-white table.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// One row per variant, connectivity, task and granularity.
    pub means: Vec<Row>,
    /// One row per variant, connectivity and task measured at
    /// [`ALL_WHITE`]; empty where the sweep did not reach that density.
    pub all_white: Vec<AllWhiteRow>,
}

/// One line of the means table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Variant name.
    pub variant: String,
    /// Connectivity.
    pub connectivity: Connectivity,
    /// Labeling or analysis.
    pub task: Task,
    /// Granularity.
    pub granularity: u32,
    /// Mean over the densities of the throughput in Gpx/s.
    pub mean_gpx_per_s: f64,
    /// Mean over the densities from 10 % to 90 % ([`MID_DENSITIES`]): the
    /// images with structure, without the empty and full ones that
    /// dominate the full mean (a labeler that skips empty rows is 40×
    /// faster there). `None` where the sweep measured none of them.
    pub mid_gpx_per_s: Option<f64>,
    /// Median time at the percolation density over the mean of the median
    /// times; `None` where that density was not measured.
    pub peak_ratio: Option<f64>,
}

/// The densities of the mid mean ([`Row::mid_gpx_per_s`]), inclusive.
pub const MID_DENSITIES: std::ops::RangeInclusive<u32> = 10..=90;

/// The density near which random images (g = 1) percolate, where labeling
/// is slowest: about 60 % for 4-connectivity, 45 % for 8; for volumes the
/// site-percolation thresholds of the cubic lattice rounded to a percent,
/// 31 % for 6 (0.3116), 14 % for 18 (0.1372), 10 % for 26 (0.0976)
/// (docs/benchmark.md).
pub fn percolation_density(connectivity: Connectivity) -> u32 {
    match connectivity {
        Connectivity::Four => 60,
        Connectivity::Eight => 45,
        Connectivity::Six => 31,
        Connectivity::Eighteen => 14,
        Connectivity::TwentySix => 10,
    }
}

/// One line of the all-white table.
#[derive(Clone, Debug, PartialEq)]
pub struct AllWhiteRow {
    /// Variant name.
    pub variant: String,
    /// Connectivity.
    pub connectivity: Connectivity,
    /// Labeling or analysis.
    pub task: Task,
    /// The granularities measured at [`ALL_WHITE`], sorted.
    pub granularities: Vec<u32>,
    /// Throughput in Gpx/s of the median time over those granularities.
    pub gpx_per_s: f64,
}

/// The summary of `measurements`: each table's rows ordered by variant,
/// connectivity, task (and granularity in the means table).
///
/// Every granularity gives the same all-white image, so a variant's
/// measurements at [`ALL_WHITE`] are repeats of one image: its all-white
/// row takes the median over them of the time per pixel (the median time,
/// as every image of a sweep has one size), which one disturbed
/// measurement does not move.
pub fn summarize(measurements: &[Measurement]) -> Summary {
    // Pattern images have their own table.
    let random: Vec<Measurement> = measurements
        .iter()
        .filter(|m| m.pattern.is_none())
        .cloned()
        .collect();
    Summary {
        means: means(&random),
        all_white: all_white(&random),
    }
}

/// The pattern images of a sweep as text tables, one per connectivity and
/// task: a row per pattern and side, a column per variant, each cell the
/// median milliseconds per image and, for an iterative variant, its rounds
/// (`r=`, summed over its stages that iterate: [`StageMedian::rounds`](super::StageMedian::rounds)).
/// Empty when the sweep measured no pattern.
pub fn pattern_table(measurements: &[Measurement]) -> String {
    let patterns: Vec<&Measurement> = measurements
        .iter()
        .filter(|m| m.pattern.is_some())
        .collect();
    let mut out = String::new();
    for (connectivity, task) in distinct(patterns.iter().map(|m| (m.connectivity, m.task))) {
        let group: Vec<&&Measurement> = patterns
            .iter()
            .filter(|m| m.connectivity == connectivity && m.task == task)
            .collect();
        let variants = distinct(group.iter().map(|m| m.variant.as_str()));
        let images = distinct(
            group
                .iter()
                .map(|m| (m.pattern.as_deref(), m.width, m.height)),
        );
        let mut header = vec!["pattern".to_string(), "size".to_string()];
        header.extend(variants.iter().map(|v| v.to_string()));
        let rows: Vec<Vec<String>> = images
            .iter()
            .map(|&(pattern, width, height)| {
                let mut row = vec![
                    pattern.unwrap_or("").to_string(),
                    format!("{width}x{height}"),
                ];
                row.extend(variants.iter().map(|&variant| {
                    group
                        .iter()
                        .find(|m| {
                            m.variant == variant
                                && (m.pattern.as_deref(), m.width, m.height)
                                    == (pattern, width, height)
                        })
                        .map_or("-".into(), |m| {
                            let rounds: Option<u32> = m
                                .stages
                                .iter()
                                .filter_map(|s| s.rounds)
                                .reduce(|a, b| a.saturating_add(b));
                            match rounds {
                                Some(r) => format!("{:.3} r={r}", m.median_ms),
                                None => format!("{:.3}", m.median_ms),
                            }
                        })
                }));
                row
            })
            .collect();
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "{connectivity}-connectivity {task}: median ms per image (r= rounds of an iterative variant)"
        );
        out.push_str(&aligned_rows(&header, &rows, 2));
    }
    out
}

/// One row per variant, connectivity, task and granularity, in that order.
fn means(measurements: &[Measurement]) -> Vec<Row> {
    fn key(m: &Measurement) -> (&str, Connectivity, Task, u32) {
        (&m.variant, m.connectivity, m.task, m.granularity)
    }
    let mut keys: Vec<_> = measurements.iter().map(key).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let group: Vec<&Measurement> = measurements.iter().filter(|m| key(m) == k).collect();
            let count = group.len() as f64;
            let mean_ms = group.iter().map(|m| m.median_ms).sum::<f64>() / count;
            let peak = percolation_density(k.1);
            Row {
                variant: k.0.to_string(),
                connectivity: k.1,
                task: k.2,
                granularity: k.3,
                mean_gpx_per_s: group.iter().map(|m| m.gpx_per_s()).sum::<f64>() / count,
                mid_gpx_per_s: {
                    let mid: Vec<f64> = group
                        .iter()
                        .filter(|m| MID_DENSITIES.contains(&m.density))
                        .map(|m| m.gpx_per_s())
                        .collect();
                    (!mid.is_empty()).then(|| mid.iter().sum::<f64>() / mid.len() as f64)
                },
                peak_ratio: group
                    .iter()
                    .find(|m| m.density == peak)
                    .map(|m| m.median_ms / mean_ms),
            }
        })
        .collect()
}

/// One row per variant, connectivity and task measured at [`ALL_WHITE`],
/// in that order (see [`summarize`]).
fn all_white(measurements: &[Measurement]) -> Vec<AllWhiteRow> {
    let white: Vec<&Measurement> = measurements
        .iter()
        .filter(|m| m.density == ALL_WHITE)
        .collect();
    let mut keys: Vec<_> = white
        .iter()
        .map(|m| (m.variant.as_str(), m.connectivity, m.task))
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|(variant, connectivity, task)| {
            let group: Vec<&&Measurement> = white
                .iter()
                .filter(|m| {
                    m.variant == variant && m.connectivity == connectivity && m.task == task
                })
                .collect();
            let mut granularities: Vec<u32> = group.iter().map(|m| m.granularity).collect();
            granularities.sort();
            granularities.dedup();
            let ms_per_pixel = median(
                group
                    .iter()
                    .map(|m| m.median_ms / (m.width as f64 * m.height as f64))
                    .collect(),
            );
            AllWhiteRow {
                variant: variant.to_string(),
                connectivity,
                task,
                granularities,
                // Gpx/s = pixels / (ms · 10⁻³) / 10⁹ = 10⁻⁶ / (ms per pixel).
                gpx_per_s: 1e-6 / ms_per_pixel,
            }
        })
        .collect()
}

/// The summary as aligned text tables, each with a header line: the means
/// table, then the all-white table where the sweep reached d = 100.
pub fn table(summary: &Summary) -> String {
    let means: Vec<[String; 7]> = summary
        .means
        .iter()
        .map(|r| {
            [
                r.variant.clone(),
                r.connectivity.to_string(),
                r.task.to_string(),
                r.granularity.to_string(),
                format!("{:.3}", r.mean_gpx_per_s),
                r.mid_gpx_per_s
                    .map_or("-".into(), |mid| format!("{mid:.3}")),
                r.peak_ratio.map_or("-".into(), |ratio| {
                    format!("{ratio:.2} (d={})", percolation_density(r.connectivity))
                }),
            ]
        })
        .collect();
    let mut out = aligned(
        [
            "variant",
            "conn",
            "task",
            "g",
            "mean Gpx/s",
            "10-90% Gpx/s",
            "peak/mean time",
        ],
        &means,
        3,
    );
    if summary.means.iter().any(|r| r.peak_ratio.is_none()) {
        out.push_str(
            "peak/mean `-`: the densities swept lack the percolation threshold \
             (60 % for 4-connectivity, 45 % for 8)\n",
        );
    }
    if !summary.all_white.is_empty() {
        let white: Vec<[String; 5]> = summary
            .all_white
            .iter()
            .map(|r| {
                [
                    r.variant.clone(),
                    r.connectivity.to_string(),
                    r.task.to_string(),
                    r.granularities
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                    format!("{:.3}", r.gpx_per_s),
                ]
            })
            .collect();
        let _ = writeln!(
            out,
            "\nall-white (d = {ALL_WHITE}): throughput of the median time over the granularities g"
        );
        out.push_str(&aligned(
            ["variant", "conn", "task", "g", "Gpx/s"],
            &white,
            4,
        ));
    }
    out
}

/// `cells` under `header` as text, one line each, columns as wide as
/// their widest cell: the first `left` columns (names, labels, lists)
/// left-aligned, the numbers after them right-aligned.
fn aligned<const N: usize>(header: [&str; N], cells: &[[String; N]], left: usize) -> String {
    let rows: Vec<Vec<String>> = cells.iter().map(|row| row.to_vec()).collect();
    aligned_rows(&header.map(String::from), &rows, left)
}

/// [`aligned`] for rows of any length (every row as long as `header`).
fn aligned_rows(header: &[String], cells: &[Vec<String>], left: usize) -> String {
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for row in cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut text = String::new();
        for (i, (cell, &width)) in cells.iter().zip(&widths).enumerate() {
            let _ = if i < left {
                write!(text, "{cell:<width$}  ")
            } else {
                write!(text, "{cell:>width$}  ")
            };
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header);
    for row in cells {
        line(row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::Backend;

    fn measurement(density: u32, median_ms: f64) -> Measurement {
        Measurement {
            variant: "v".into(),
            backend: Backend::Cpu,
            connectivity: Connectivity::Four,
            task: Task::Label,
            width: 1000,
            height: 1000,
            granularity: 1,
            density,
            reps: 1,
            median_ms,
            min_ms: median_ms,
            transfer_ms: 0.0,
            stages: Vec::new(),
            pattern: None,
        }
    }

    #[test]
    fn pattern_table_gives_ms_and_rounds_per_pattern_and_size() {
        let on = |variant: &str, side, median_ms, stages: &[(&str, Option<u32>)]| Measurement {
            variant: variant.into(),
            width: side,
            height: side,
            granularity: 0,
            density: 0,
            pattern: Some("spiral".into()),
            stages: stages
                .iter()
                .map(|&(stage, rounds)| super::super::StageMedian {
                    stage: stage.into(),
                    ms: median_ms,
                    rounds,
                })
                .collect(),
            ..measurement(0, median_ms)
        };
        let sweep = [
            on("le", 512, 2.5, &[("init", None), ("iterate", Some(7))]),
            on("le", 256, 1.25, &[("init", None), ("iterate", Some(5))]),
            on("ha4-32", 256, 0.5, &[("strip", None)]),
            measurement(50, 1.0),
        ];
        let table = pattern_table(&sweep);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].starts_with("4-connectivity label: median ms per image"));
        let cells: Vec<Vec<&str>> = lines[1..]
            .iter()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(cells[0], ["pattern", "size", "ha4-32", "le"]);
        assert_eq!(cells[1], ["spiral", "256x256", "0.500", "1.250", "r=5"]);
        assert_eq!(cells[2], ["spiral", "512x512", "-", "2.500", "r=7"]);
        // The random image is the summary's; the patterns are not.
        assert_eq!(summarize(&sweep).means.len(), 1);
        assert!(pattern_table(&sweep[3..]).is_empty());
    }

    #[test]
    fn mean_throughput_and_peak_ratio() {
        // 1 Mpx in 1 ms = 1 Gpx/s; in 4 ms = 0.25 Gpx/s.
        let summary = summarize(&[
            measurement(0, 1.0),
            measurement(60, 4.0),
            measurement(100, 1.0),
        ]);
        let rows = &summary.means;
        assert_eq!(rows.len(), 1);
        assert!((rows[0].mean_gpx_per_s - 0.75).abs() < 1e-9);
        // Only d = 60 lies in 10..=90.
        assert_eq!(rows[0].mid_gpx_per_s, Some(0.25));
        assert_eq!(rows[0].peak_ratio, Some(2.0));
        let line = table(&summary).lines().nth(1).unwrap().to_string();
        assert!(line.contains("0.750") && line.contains("0.250"), "{line}");
        assert!(line.contains("2.00 (d=60)"), "{line}");
    }

    #[test]
    fn no_peak_ratio_without_the_percolation_density() {
        let summary = summarize(&[measurement(50, 1.0)]);
        assert_eq!(summary.means[0].peak_ratio, None);
    }

    #[test]
    fn no_mid_mean_without_densities_from_10_to_90() {
        let summary = summarize(&[measurement(0, 1.0), measurement(100, 1.0)]);
        assert_eq!(summary.means[0].mid_gpx_per_s, None);
        let line = table(&summary).lines().nth(1).unwrap().to_string();
        assert_eq!(line.split_whitespace().nth(5), Some("-"), "{line}");
    }

    #[test]
    fn all_white_takes_the_median_time_over_the_granularities() {
        let at = |granularity, density, median_ms| Measurement {
            pattern: None,
            granularity,
            ..measurement(density, median_ms)
        };
        // At d = 100: 1, 2 and 10 ms; the median, 2 ms, is 0.5 Gpx/s.
        let measurements = [
            at(1, 100, 1.0),
            at(16, 100, 10.0),
            at(4, 100, 2.0),
            at(4, 50, 8.0),
            Measurement {
                task: Task::Analyze,
                ..at(4, 100, 4.0)
            },
        ];
        let summary = summarize(&measurements);
        assert_eq!(
            summary.all_white,
            [
                AllWhiteRow {
                    variant: "v".into(),
                    connectivity: Connectivity::Four,
                    task: Task::Label,
                    granularities: vec![1, 4, 16],
                    gpx_per_s: 0.5,
                },
                AllWhiteRow {
                    variant: "v".into(),
                    connectivity: Connectivity::Four,
                    task: Task::Analyze,
                    granularities: vec![4],
                    gpx_per_s: 0.25,
                },
            ]
        );
        let text = table(&summary);
        let white: Vec<&str> = text
            .lines()
            .skip_while(|line| !line.starts_with("all-white (d = 100)"))
            .collect();
        assert_eq!(
            white,
            [
                "all-white (d = 100): throughput of the median time over the granularities g",
                "variant  conn  task     g       Gpx/s",
                "v        4     label    1,4,16  0.500",
                "v        4     analyze  4       0.250",
            ],
            "{text}"
        );
    }

    #[test]
    fn no_all_white_table_without_density_100() {
        let summary = summarize(&[measurement(0, 1.0), measurement(95, 2.0)]);
        assert!(summary.all_white.is_empty());
        assert!(!table(&summary).contains("all-white"));
    }
}
