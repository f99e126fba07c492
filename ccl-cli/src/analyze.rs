//! `ccl analyze`: every component's features, one row per component in
//! canonical order (row i is canonical label i + 1).

use std::process::ExitCode;

use ccl_core::{ComponentStats, Task};
use serde::Serialize;

use crate::args::Input;
use crate::output::{Stdout, StdoutError, out};

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    input: Input,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    /// Aligned columns with a header line.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON object with the image, the settings and every component.
    Json,
}

/// The JSON document; field order is the output's key order.
#[derive(Serialize)]
struct Report<'a> {
    width: usize,
    height: usize,
    connectivity: u32,
    algorithm: &'a str,
    components: usize,
    stats: Vec<Row>,
}

/// One component; field order is the column and key order.
#[derive(Serialize)]
struct Row {
    label: usize,
    area: u32,
    x_min: u32,
    y_min: u32,
    x_max: u32,
    y_max: u32,
    sum_x: u64,
    sum_y: u64,
    centroid_x: f64,
    centroid_y: f64,
}

const COLUMNS: [&str; 10] = [
    "label",
    "area",
    "x_min",
    "y_min",
    "x_max",
    "y_max",
    "sum_x",
    "sum_y",
    "centroid_x",
    "centroid_y",
];

impl Row {
    fn new(index: usize, s: &ComponentStats) -> Self {
        let (centroid_x, centroid_y) = s.centroid();
        Row {
            label: index + 1,
            area: s.area,
            x_min: s.x_min,
            y_min: s.y_min,
            x_max: s.x_max,
            y_max: s.y_max,
            sum_x: s.sum_x,
            sum_y: s.sum_y,
            centroid_x,
            centroid_y,
        }
    }

    /// The cells in [`COLUMNS`] order; centroids with `decimals` digits, or
    /// in full where `None`.
    fn cells(&self, decimals: Option<usize>) -> [String; 10] {
        let real = |v: f64| match decimals {
            Some(d) => format!("{v:.d$}"),
            None => v.to_string(),
        };
        [
            self.label.to_string(),
            self.area.to_string(),
            self.x_min.to_string(),
            self.y_min.to_string(),
            self.x_max.to_string(),
            self.y_max.to_string(),
            self.sum_x.to_string(),
            self.sum_y.to_string(),
            real(self.centroid_x),
            real(self.centroid_y),
        ]
    }
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let (image, algorithm) = args.input.load(Task::Analyze)?;
    let stats = algorithm
        .analyzer()?
        .analyze(&image.view(), args.input.connectivity)?;
    let rows: Vec<Row> = stats
        .iter()
        .enumerate()
        .map(|(i, s)| Row::new(i, s))
        .collect();
    let mut out = Stdout::lock();
    match args.format {
        Format::Json => {
            let report = Report {
                width: image.width(),
                height: image.height(),
                connectivity: args.input.connectivity.neighbours(),
                algorithm: algorithm.name,
                components: rows.len(),
                stats: rows,
            };
            // A write error (a closed pipe) stays an io::Error, which `main`
            // knows; serde_json would wrap it in its own error type.
            let json = serde_json::to_string(&report)?;
            out!(out, "{json}")?;
        }
        Format::Csv => {
            out!(out, "{}", COLUMNS.join(","))?;
            for row in &rows {
                out!(out, "{}", row.cells(None).join(","))?;
            }
        }
        Format::Table => write_table(&mut out, &rows)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Right-aligned columns under a header line.
fn write_table(out: &mut Stdout, rows: &[Row]) -> Result<(), StdoutError> {
    let cells: Vec<[String; 10]> = rows.iter().map(|r| r.cells(Some(3))).collect();
    let mut widths = COLUMNS.map(str::len);
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let header = COLUMNS.map(String::from);
    for row in std::iter::once(&header).chain(&cells) {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:>width$}"))
            .collect();
        out!(out, "{}", line.join("  "))?;
    }
    Ok(())
}
