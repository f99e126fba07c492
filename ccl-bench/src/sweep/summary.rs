//! The summary of a sweep: mean throughput over the densities per variant,
//! connectivity, task and granularity (the seeds' own summary figure), and
//! how much slower the percolation threshold is than the mean.

use std::fmt::Write;

use ccl_core::{Connectivity, Task};

use super::Measurement;

/// One line of the summary.
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
    /// Median time at the percolation density over the mean of the median
    /// times; `None` where that density was not measured.
    pub peak_ratio: Option<f64>,
}

/// The density near which random images percolate, where labeling is
/// slowest: about 60 % for 4-connectivity, 45 % for 8 (docs/benchmark.md).
pub fn percolation_density(connectivity: Connectivity) -> u32 {
    match connectivity {
        Connectivity::Four => 60,
        Connectivity::Eight => 45,
    }
}

/// One row per variant, connectivity, task and granularity, in that order.
pub fn summarize(measurements: &[Measurement]) -> Vec<Row> {
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
                peak_ratio: group
                    .iter()
                    .find(|m| m.density == peak)
                    .map(|m| m.median_ms / mean_ms),
            }
        })
        .collect()
}

/// The rows as an aligned text table with a header line.
pub fn table(rows: &[Row]) -> String {
    let header = [
        "variant",
        "conn",
        "task",
        "g",
        "mean Gpx/s",
        "peak/mean time",
    ];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                r.variant.clone(),
                r.connectivity.to_string(),
                r.task.to_string(),
                r.granularity.to_string(),
                format!("{:.3}", r.mean_gpx_per_s),
                r.peak_ratio.map_or("-".into(), |ratio| {
                    format!("{ratio:.2} (d={})", percolation_density(r.connectivity))
                }),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut text = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            // Names and labels left-aligned, numbers right-aligned.
            let _ = match i {
                0..=2 => write!(text, "{cell:<width$}  "),
                _ => write!(text, "{cell:>width$}  "),
            };
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&header.map(String::from));
    for row in &cells {
        line(row);
    }
    if rows.iter().any(|r| r.peak_ratio.is_none()) {
        out.push_str(
            "peak/mean `-`: the densities swept lack the percolation threshold \
             (60 % for 4-connectivity, 45 % for 8)\n",
        );
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
        }
    }

    #[test]
    fn mean_throughput_and_peak_ratio() {
        // 1 Mpx in 1 ms = 1 Gpx/s; in 4 ms = 0.25 Gpx/s.
        let rows = summarize(&[
            measurement(0, 1.0),
            measurement(60, 4.0),
            measurement(100, 1.0),
        ]);
        assert_eq!(rows.len(), 1);
        assert!((rows[0].mean_gpx_per_s - 0.75).abs() < 1e-9);
        assert_eq!(rows[0].peak_ratio, Some(2.0));
        assert!(table(&rows).lines().nth(1).unwrap().contains("2.00 (d=60)"));
    }

    #[test]
    fn no_peak_ratio_without_the_percolation_density() {
        let rows = summarize(&[measurement(50, 1.0)]);
        assert_eq!(rows[0].peak_ratio, None);
    }
}
