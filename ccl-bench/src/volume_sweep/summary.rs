//! The summary of a volume sweep, as `summary.txt` holds it: per variant,
//! connectivity, task and granularity, the mean throughput over the
//! densities and the slowest density (its time, its throughput, its time
//! over the mean time: the percolation peak); and per variant,
//! connectivity and granularity, the largest ratio over the densities of
//! the analysis's time to the labeling's.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use ccl_core::{Connectivity, Task};

use super::VolumeMeasurement;
use crate::sweep::SweepError;
use crate::sweep::summary::percolation_density;

/// The file the summary is written to, in the sweep's folder.
pub const FILE_NAME: &str = "summary.txt";

/// A volume sweep's summary: the throughput table and the analysis
/// against labeling.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeSummary {
    /// One row per variant, connectivity, task and granularity.
    pub rows: Vec<Row>,
    /// One row per variant, connectivity and granularity measured in both
    /// tasks at one density or more.
    pub analyze_over_label: Vec<TaskRatio>,
}

/// One line of the throughput table.
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
    /// The number of densities measured.
    pub densities: usize,
    /// Mean over the densities of the throughput in Gvox/s.
    pub mean_gvox_per_s: f64,
    /// The density of the slowest median time.
    pub slowest_density: u32,
    /// The slowest median time, in ms.
    pub slowest_ms: f64,
    /// The throughput at the slowest density, in Gvox/s.
    pub slowest_gvox_per_s: f64,
    /// The slowest median time over the mean of the median times: how far
    /// the worst density (at g = 1 the percolation threshold, for a
    /// labeler that slows down there) stands above the rest.
    pub slowest_over_mean: f64,
}

/// The analysis's time against the labeling's for one variant,
/// connectivity and granularity.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRatio {
    /// Variant name.
    pub variant: String,
    /// Connectivity.
    pub connectivity: Connectivity,
    /// Granularity.
    pub granularity: u32,
    /// The number of densities measured in both tasks.
    pub densities: usize,
    /// The largest over those densities of the analysis's median time over
    /// the labeling's.
    pub ratio: f64,
    /// The density of that largest ratio.
    pub density: u32,
}

/// The summary of `measurements`, each table's rows ordered by variant,
/// connectivity, task (in the throughput table) and granularity.
pub fn summarize(measurements: &[VolumeMeasurement]) -> VolumeSummary {
    VolumeSummary {
        rows: rows(measurements),
        analyze_over_label: analyze_over_label(measurements),
    }
}

/// One row per variant, connectivity, task and granularity.
fn rows(measurements: &[VolumeMeasurement]) -> Vec<Row> {
    fn key(m: &VolumeMeasurement) -> (&str, Connectivity, Task, u32) {
        (&m.variant, m.connectivity, m.task, m.granularity)
    }
    let mut keys: Vec<_> = measurements.iter().map(key).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let group: Vec<&VolumeMeasurement> =
                measurements.iter().filter(|m| key(m) == k).collect();
            let count = group.len() as f64;
            let mean_ms = group.iter().map(|m| m.median_ms).sum::<f64>() / count;
            // The first of equal times: the lowest density in sweep order.
            let slowest = group
                .iter()
                .copied()
                .reduce(|a, b| if b.median_ms > a.median_ms { b } else { a })?;
            Some(Row {
                variant: k.0.to_string(),
                connectivity: k.1,
                task: k.2,
                granularity: k.3,
                densities: group.len(),
                mean_gvox_per_s: group.iter().map(|m| m.gvox_per_s()).sum::<f64>() / count,
                slowest_density: slowest.density,
                slowest_ms: slowest.median_ms,
                slowest_gvox_per_s: slowest.gvox_per_s(),
                slowest_over_mean: slowest.median_ms / mean_ms,
            })
        })
        .collect()
}

/// One row per variant, connectivity and granularity with both tasks
/// measured at some density.
fn analyze_over_label(measurements: &[VolumeMeasurement]) -> Vec<TaskRatio> {
    let find = |m: &VolumeMeasurement, task: Task| {
        measurements.iter().find(|o| {
            (&o.variant, o.connectivity, o.granularity, o.density, o.task)
                == (&m.variant, m.connectivity, m.granularity, m.density, task)
        })
    };
    // (variant, connectivity, granularity, density, analyze / label).
    let mut pairs: Vec<(&str, Connectivity, u32, u32, f64)> = measurements
        .iter()
        .filter(|m| m.task == Task::Analyze)
        .filter_map(|analyze| {
            let label = find(analyze, Task::Label)?;
            // The first analysis at a density is the one paired, as `find`
            // pairs the first labeling.
            let first = find(analyze, Task::Analyze)?;
            std::ptr::eq(first, analyze).then_some((
                analyze.variant.as_str(),
                analyze.connectivity,
                analyze.granularity,
                analyze.density,
                analyze.median_ms / label.median_ms,
            ))
        })
        .collect();
    pairs.sort_by(|a, b| (a.0, a.1, a.2, a.3).cmp(&(b.0, b.1, b.2, b.3)));
    let mut out: Vec<TaskRatio> = Vec::new();
    for (variant, connectivity, granularity, density, ratio) in pairs {
        match out.last_mut() {
            Some(last)
                if (last.variant.as_str(), last.connectivity, last.granularity)
                    == (variant, connectivity, granularity) =>
            {
                last.densities += 1;
                // NaN (0 / 0) never replaces a number.
                if ratio > last.ratio || last.ratio.is_nan() {
                    (last.ratio, last.density) = (ratio, density);
                }
            }
            _ => out.push(TaskRatio {
                variant: variant.to_string(),
                connectivity,
                granularity,
                densities: 1,
                ratio,
                density,
            }),
        }
    }
    out
}

/// The summary as aligned text tables, each under a line that says what
/// it holds: the throughput table, then analysis against labeling where
/// both tasks were measured.
pub fn table(summary: &VolumeSummary) -> String {
    let mut out = String::from(
        "volumes: mean throughput over the densities, and the slowest density \
         (percolation thresholds: 31 % for 6-connectivity, 14 % for 18, 10 % for 26)\n",
    );
    let rows: Vec<Vec<String>> = summary
        .rows
        .iter()
        .map(|r| {
            let mut slowest = r.slowest_density.to_string();
            if r.slowest_density == percolation_density(r.connectivity) {
                // The threshold itself: the peak the protocol expects.
                slowest.push('*');
            }
            vec![
                r.variant.clone(),
                r.connectivity.to_string(),
                r.task.to_string(),
                r.granularity.to_string(),
                r.densities.to_string(),
                format!("{:.3}", r.mean_gvox_per_s),
                slowest,
                format!("{:.3}", r.slowest_ms),
                format!("{:.3}", r.slowest_gvox_per_s),
                format!("{:.2}", r.slowest_over_mean),
            ]
        })
        .collect();
    out.push_str(&aligned(
        &[
            "variant",
            "conn",
            "task",
            "g",
            "densities",
            "mean Gvox/s",
            "slowest d",
            "slowest ms",
            "slowest Gvox/s",
            "slowest/mean time",
        ],
        &rows,
        3,
    ));
    if summary
        .rows
        .iter()
        .any(|r| r.slowest_density == percolation_density(r.connectivity))
    {
        out.push_str("slowest d `*`: the connectivity's percolation threshold\n");
    }
    if !summary.analyze_over_label.is_empty() {
        out.push_str(
            "\nanalyze / label: the largest ratio over the densities of the analysis's median \
             time to the labeling's\n",
        );
        let rows: Vec<Vec<String>> = summary
            .analyze_over_label
            .iter()
            .map(|r| {
                vec![
                    r.variant.clone(),
                    r.connectivity.to_string(),
                    r.granularity.to_string(),
                    r.densities.to_string(),
                    format!("{:.2}", r.ratio),
                    r.density.to_string(),
                ]
            })
            .collect();
        out.push_str(&aligned(
            &["variant", "conn", "g", "densities", "analyze/label", "at d"],
            &rows,
            2,
        ));
    }
    out
}

/// Writes `text` (a [`table`]) as [`FILE_NAME`] in `dir`, the folder
/// created if missing; returns the file's path.
///
/// # Errors
/// The folder or the file cannot be written.
pub fn write(dir: &Path, text: &str) -> Result<PathBuf, SweepError> {
    crate::sweep::csv::write_file(dir, FILE_NAME, text)
}

/// `cells` under `header` as text, one line each, columns as wide as their
/// widest cell: the first `left` columns (names) left-aligned, the numbers
/// after them right-aligned, as the image sweep's summary lays them out.
fn aligned(header: &[&str], cells: &[Vec<String>], left: usize) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (i, (cell, &width)) in cells.zip(&widths).enumerate() {
            let _ = if i < left {
                write!(text, "{cell:<width$}  ")
            } else {
                write!(text, "{cell:>width$}  ")
            };
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for row in cells {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::Backend;

    /// 100³ = 10⁶ voxels: 1 ms is 1 Gvox/s.
    fn at(task: Task, granularity: u32, density: u32, median_ms: f64) -> VolumeMeasurement {
        VolumeMeasurement {
            variant: "v".into(),
            backend: Backend::Cpu,
            connectivity: Connectivity::Six,
            task,
            width: 100,
            height: 100,
            depth: 100,
            granularity,
            density,
            reps: 1,
            median_ms,
            min_ms: median_ms,
            transfer_ms: 0.0,
            stages: Vec::new(),
        }
    }

    #[test]
    fn mean_throughput_and_the_slowest_density() {
        let summary = summarize(&[
            at(Task::Label, 1, 10, 1.0),
            at(Task::Label, 1, 31, 4.0),
            at(Task::Label, 1, 60, 1.0),
            at(Task::Label, 4, 31, 2.0),
        ]);
        assert_eq!(summary.rows.len(), 2);
        let row = &summary.rows[0];
        assert_eq!((row.granularity, row.densities), (1, 3));
        // (1 + 0.25 + 1) / 3 Gvox/s; 4 ms over a mean of 2 ms.
        assert!((row.mean_gvox_per_s - 0.75).abs() < 1e-9);
        assert_eq!((row.slowest_density, row.slowest_ms), (31, 4.0));
        assert_eq!(row.slowest_gvox_per_s, 0.25);
        assert_eq!(row.slowest_over_mean, 2.0);
        assert_eq!(summary.rows[1].slowest_over_mean, 1.0);
        assert!(summary.analyze_over_label.is_empty());
        let text = table(&summary);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("volumes: mean throughput"), "{text}");
        assert_eq!(
            lines[1].split_whitespace().next(),
            Some("variant"),
            "{text}"
        );
        let cells: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "v", "6", "label", "1", "3", "0.750", "31*", "4.000", "0.250", "2.00"
            ],
            "{text}"
        );
        assert!(text.contains("the connectivity's percolation threshold"));
        assert!(!text.contains("analyze / label"));
    }

    #[test]
    fn analyze_over_label_takes_the_worst_density() {
        let summary = summarize(&[
            at(Task::Label, 1, 10, 2.0),
            at(Task::Analyze, 1, 10, 2.5),
            at(Task::Label, 1, 31, 4.0),
            at(Task::Analyze, 1, 31, 8.0),
            // No labeling at d = 50: not paired.
            at(Task::Analyze, 1, 50, 100.0),
            at(Task::Label, 4, 31, 2.0),
            at(Task::Analyze, 4, 31, 1.0),
        ]);
        assert_eq!(
            summary.analyze_over_label,
            [
                TaskRatio {
                    variant: "v".into(),
                    connectivity: Connectivity::Six,
                    granularity: 1,
                    densities: 2,
                    ratio: 2.0,
                    density: 31,
                },
                TaskRatio {
                    variant: "v".into(),
                    connectivity: Connectivity::Six,
                    granularity: 4,
                    densities: 1,
                    ratio: 0.5,
                    density: 31,
                },
            ]
        );
        let text = table(&summary);
        let tail: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("analyze / label"))
            .collect();
        assert_eq!(
            tail[1..],
            [
                "variant  conn  g  densities  analyze/label  at d",
                "v        6     1          2           2.00    31",
                "v        6     4          1           0.50    31",
            ],
            "{text}"
        );
    }

    #[test]
    fn the_table_is_written_to_summary_txt() {
        let dir = std::env::temp_dir().join(format!("ccl-volume-summary-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let text = table(&summarize(&[at(Task::Label, 1, 5, 1.0)]));
        let path = write(&dir, &text).unwrap();
        assert_eq!(path, dir.join(FILE_NAME));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // 5 % is no threshold: no footnote.
        assert!(!text.contains('*'));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
