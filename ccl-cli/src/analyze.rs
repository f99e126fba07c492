//! `ccl analyze`: every component's features, one row per component in
//! canonical order (row i is canonical label i + 1), of an image or of a
//! volume (whose rows add the z columns).

use std::process::ExitCode;

use ccl_core::Task;
use ccl_scale::{LargeStats, Shape};
use serde::Serialize;

use crate::input::{Data, Input, Loaded};
use crate::output::{Stdout, StdoutError, out};

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    input: Input,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Strips streamed through the GPU, for inputs past its memory.
    #[command(flatten)]
    strips: crate::strips::StripArgs,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    /// Aligned columns with a header line.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON object with the input's size, the settings and every
    /// component.
    Json,
}

/// The JSON document; field order is the output's key order.
#[derive(Serialize)]
struct Report<'a, R> {
    width: usize,
    height: usize,
    /// A volume's; an image's document has no `depth` key.
    #[serde(skip_serializing_if = "Option::is_none")]
    depth: Option<usize>,
    connectivity: u32,
    algorithm: &'a str,
    components: usize,
    stats: Vec<R>,
}

/// A component's row in every format.
trait Row: Serialize {
    /// The column names, the CSV and table header.
    const COLUMNS: &'static [&'static str];

    /// The cells in [`Row::COLUMNS`] order; centroids with `decimals`
    /// digits, or in full where `None`.
    fn cells(&self, decimals: Option<usize>) -> Vec<String>;
}

/// A real number with `decimals` digits, or in full.
fn real(value: f64, decimals: Option<usize>) -> String {
    match decimals {
        Some(d) => format!("{value:.d$}"),
        None => value.to_string(),
    }
}

/// One component of an image; field order is the column and key order.
#[derive(Serialize)]
struct ImageRow {
    label: usize,
    area: u64,
    x_min: u32,
    y_min: u32,
    x_max: u32,
    y_max: u32,
    sum_x: u64,
    sum_y: u64,
    centroid_x: f64,
    centroid_y: f64,
}

impl ImageRow {
    /// The row of component `index` (canonical label `index + 1`).
    fn new(index: usize, s: &LargeStats) -> Self {
        let [centroid_x, centroid_y, _] = s.centroid();
        ImageRow {
            label: index + 1,
            area: s.area,
            x_min: s.min[0],
            y_min: s.min[1],
            x_max: s.max[0],
            y_max: s.max[1],
            sum_x: s.sum[0],
            sum_y: s.sum[1],
            centroid_x,
            centroid_y,
        }
    }
}

impl Row for ImageRow {
    const COLUMNS: &'static [&'static str] = &[
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

    fn cells(&self, decimals: Option<usize>) -> Vec<String> {
        vec![
            self.label.to_string(),
            self.area.to_string(),
            self.x_min.to_string(),
            self.y_min.to_string(),
            self.x_max.to_string(),
            self.y_max.to_string(),
            self.sum_x.to_string(),
            self.sum_y.to_string(),
            real(self.centroid_x, decimals),
            real(self.centroid_y, decimals),
        ]
    }
}

/// One component of a volume: the image's columns with z beside x and y.
#[derive(Serialize)]
struct VolumeRow {
    label: usize,
    area: u64,
    x_min: u32,
    y_min: u32,
    z_min: u32,
    x_max: u32,
    y_max: u32,
    z_max: u32,
    sum_x: u64,
    sum_y: u64,
    sum_z: u64,
    centroid_x: f64,
    centroid_y: f64,
    centroid_z: f64,
}

impl VolumeRow {
    /// The row of component `index` (canonical label `index + 1`).
    fn new(index: usize, s: &LargeStats) -> Self {
        let [centroid_x, centroid_y, centroid_z] = s.centroid();
        VolumeRow {
            label: index + 1,
            area: s.area,
            x_min: s.min[0],
            y_min: s.min[1],
            z_min: s.min[2],
            x_max: s.max[0],
            y_max: s.max[1],
            z_max: s.max[2],
            sum_x: s.sum[0],
            sum_y: s.sum[1],
            sum_z: s.sum[2],
            centroid_x,
            centroid_y,
            centroid_z,
        }
    }
}

impl Row for VolumeRow {
    const COLUMNS: &'static [&'static str] = &[
        "label",
        "area",
        "x_min",
        "y_min",
        "z_min",
        "x_max",
        "y_max",
        "z_max",
        "sum_x",
        "sum_y",
        "sum_z",
        "centroid_x",
        "centroid_y",
        "centroid_z",
    ];

    fn cells(&self, decimals: Option<usize>) -> Vec<String> {
        vec![
            self.label.to_string(),
            self.area.to_string(),
            self.x_min.to_string(),
            self.y_min.to_string(),
            self.z_min.to_string(),
            self.x_max.to_string(),
            self.y_max.to_string(),
            self.z_max.to_string(),
            self.sum_x.to_string(),
            self.sum_y.to_string(),
            self.sum_z.to_string(),
            real(self.centroid_x, decimals),
            real(self.centroid_y, decimals),
            real(self.centroid_z, decimals),
        ]
    }
}

pub(crate) fn run(args: Args) -> Result<ExitCode, crate::Error> {
    if let Some(max_memory) = args.strips.max_gpu_memory {
        return streamed(args.format, &args.input, max_memory, args.strips.devices);
    }
    let plan = args.input.plan()?;
    let Loaded {
        data,
        connectivity,
        algorithm,
    } = args.input.load(plan, Task::Analyze)?;
    let mut analyzer = algorithm.analyzer()?;
    let neighbours = connectivity.neighbours();
    match data {
        Data::Image(image) => {
            let stats = analyzer.analyze(&image.view(), connectivity)?;
            let stats: Vec<LargeStats> = stats.iter().map(LargeStats::from).collect();
            let size = (image.width(), image.height(), None);
            write(
                args.format,
                &report(size, neighbours, algorithm.name, &stats, ImageRow::new),
            )?;
        }
        Data::Volume(volume) => {
            let stats = analyzer.analyze_volume(&volume.view(), connectivity)?;
            let stats: Vec<LargeStats> = stats.iter().map(LargeStats::from).collect();
            let size = (volume.width(), volume.height(), Some(volume.depth()));
            write(
                args.format,
                &report(size, neighbours, algorithm.name, &stats, VolumeRow::new),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `ccl analyze --max-gpu-memory`: the features merged across strips.
fn streamed(
    format: Format,
    input: &Input,
    max_memory: u64,
    devices: Vec<usize>,
) -> Result<ExitCode, crate::Error> {
    let streamed = crate::strips::Streamed::new(input, max_memory, devices)?;
    let opened = crate::strips::open(streamed, Task::Analyze)?;
    let stats = opened.with_source(|source| {
        opened
            .labeler
            .analyze(opened.shape, opened.connectivity, source)
    })?;
    let (name, connectivity) = (
        opened.labeler.variant().name,
        opened.connectivity.neighbours(),
    );
    match opened.shape {
        Shape::Image { width, height } => {
            let size = (width, height, None);
            write(
                format,
                &report(size, connectivity, name, &stats, ImageRow::new),
            )?;
        }
        Shape::Volume {
            width,
            height,
            depth,
        } => {
            let size = (width, height, Some(depth));
            write(
                format,
                &report(size, connectivity, name, &stats, VolumeRow::new),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The report of `stats` of an input of `(width, height, depth)`, its rows
/// made by `row`.
fn report<'a, R: Row>(
    (width, height, depth): (usize, usize, Option<usize>),
    connectivity: u32,
    algorithm: &'a str,
    stats: &[LargeStats],
    row: fn(usize, &LargeStats) -> R,
) -> Report<'a, R> {
    let stats: Vec<R> = stats.iter().enumerate().map(|(i, s)| row(i, s)).collect();
    Report {
        width,
        height,
        depth,
        connectivity,
        algorithm,
        components: stats.len(),
        stats,
    }
}

/// Prints `report` in `format`.
fn write<R: Row>(format: Format, report: &Report<'_, R>) -> Result<(), crate::Error> {
    let mut out = Stdout::lock();
    match format {
        Format::Json => {
            // A write error (a closed pipe) stays an io::Error, which `main`
            // knows; serde_json would wrap it in its own error type.
            let json = serde_json::to_string(report)?;
            out!(out, "{json}")?;
        }
        Format::Csv => {
            out!(out, "{}", R::COLUMNS.join(","))?;
            for row in &report.stats {
                out!(out, "{}", row.cells(None).join(","))?;
            }
        }
        Format::Table => write_table(&mut out, &report.stats)?,
    }
    Ok(())
}

/// Right-aligned columns under a header line.
fn write_table<R: Row>(out: &mut Stdout, rows: &[R]) -> Result<(), StdoutError> {
    let cells: Vec<Vec<String>> = rows.iter().map(|r| r.cells(Some(3))).collect();
    let mut widths: Vec<usize> = R::COLUMNS.iter().map(|c| c.len()).collect();
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let header: Vec<String> = R::COLUMNS.iter().map(|c| c.to_string()).collect();
    for row in std::iter::once(&header).chain(&cells) {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &width)| format!("{cell:>width$}"))
            .collect();
        out!(out, "{}", line.join("  "))?;
    }
    Ok(())
}
