//! The atomic feature updates of the analyses of `ccl-cuda-flsl` against
//! density: Fig. 5 of Lemaitre, Hennequin & Lacassagne (ICASSP 2021), how
//! many updates each variant makes per pixel and how many of them collide
//! on one target. `ccl updates` counts them with
//! [`ccl_cuda_flsl::count_updates`] on the sweep's MT19937 images; this
//! module holds the counts as CSV rows, writes and reads them back, and
//! [`plot`] draws them.

pub mod plot;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use ccl_core::Connectivity;
use ccl_cuda_flsl::UpdateCounts;

use crate::sweep::SweepError;
use crate::sweep::csv::{CsvError, fields, parse, parse_lines, read_file, write_file};

/// The CSV header.
pub const HEADER: &str = "variant,connectivity,width,height,granularity,density,updates,sum_of_squares,conflicts,updates_per_pixel";

/// The update counts of one variant and connectivity on one image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Variant name, one of [`ccl_cuda_flsl::COUNTED_VARIANTS`].
    pub variant: String,
    /// Connectivity.
    pub connectivity: Connectivity,
    /// Image width.
    pub width: usize,
    /// Image height.
    pub height: usize,
    /// Granularity of the image.
    pub granularity: u32,
    /// Density of the image in percent.
    pub density: u32,
    /// What the instrumented analysis counted.
    pub counts: UpdateCounts,
}

impl Row {
    /// Atomic updates per pixel of the image (0 for an image without
    /// pixels, which makes no updates).
    pub fn updates_per_pixel(&self) -> f64 {
        match self.width * self.height {
            0 => 0.0,
            pixels => self.counts.updates as f64 / pixels as f64,
        }
    }

    /// The paper's estimate of conflicts, ΣU²/ΣU (see
    /// [`UpdateCounts::conflicts`]).
    pub fn conflicts(&self) -> f64 {
        self.counts.conflicts()
    }
}

/// The rows as CSV text with a header line. The `conflicts` and
/// `updates_per_pixel` columns are derived from the others, written in
/// full precision (updates per pixel can be far below 10⁻⁶).
pub fn to_csv(rows: &[Row]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            r.variant,
            r.connectivity,
            r.width,
            r.height,
            r.granularity,
            r.density,
            r.counts.updates,
            r.counts.sum_of_squares,
            r.conflicts(),
            r.updates_per_pixel()
        );
    }
    out
}

/// The rows in CSV text that [`to_csv`] wrote: its exact inverse. The
/// derived columns are not read.
///
/// # Errors
/// The first line that is not the header or not a row of [`HEADER`]'s
/// columns.
pub fn from_csv(text: &str) -> Result<Vec<Row>, CsvError> {
    parse_lines(text, HEADER, "an update count's CSV", parse_row)
}

/// Writes `updates.csv` into `dir` (created if missing) and returns its path.
///
/// # Errors
/// The folder or the file cannot be written.
pub fn write(rows: &[Row], dir: &Path) -> Result<PathBuf, SweepError> {
    write_file(dir, "updates.csv", &to_csv(rows))
}

/// Reads update counts, as [`write()`] saved them.
///
/// # Errors
/// The file cannot be read, or is not CSV as [`to_csv`] writes it.
pub fn read(path: &Path) -> Result<Vec<Row>, SweepError> {
    read_file(path, from_csv)
}

fn parse_row(row: &str) -> Result<Row, String> {
    let [
        variant,
        connectivity,
        width,
        height,
        granularity,
        density,
        updates,
        sum_of_squares,
        _conflicts,
        _updates_per_pixel,
    ] = fields(row, HEADER)?;
    Ok(Row {
        variant: variant.to_string(),
        connectivity: parse("connectivity", connectivity)?,
        width: parse("width", width)?,
        height: parse("height", height)?,
        granularity: parse("granularity", granularity)?,
        density: parse("density", density)?,
        counts: UpdateCounts {
            updates: parse("updates", updates)?,
            sum_of_squares: parse("sum_of_squares", sum_of_squares)?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `variant` at `density` with `updates` updates, each target
    /// getting `per_target` of them.
    pub(super) fn row(variant: &str, density: u32, updates: u64, per_target: u64) -> Row {
        Row {
            variant: variant.to_string(),
            connectivity: Connectivity::Eight,
            width: 2000,
            height: 1000,
            granularity: 1,
            density,
            counts: UpdateCounts {
                updates,
                sum_of_squares: updates * per_target,
            },
        }
    }

    /// A fresh folder of this process for the test `tag`; the test removes it.
    pub(super) fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ccl-bench-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn one_row_per_count_with_its_derived_columns() {
        let csv = to_csv(&[row("flsl", 45, 500_000, 4)]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], HEADER);
        assert_eq!(lines[1], "flsl,8,2000,1000,1,45,500000,2000000,4,0.25");
        assert_eq!(lines[1].split(',').count(), HEADER.split(',').count());
    }

    #[test]
    fn reading_inverts_writing() {
        let rows = vec![
            row("naive-cca", 100, 2_000_000, 2_000_000),
            Row {
                connectivity: Connectivity::Four,
                width: 7,
                height: 3,
                granularity: 16,
                ..row("flsl-cd", 0, 0, 0)
            },
            row("ha-otf", 55, 3, 1),
        ];
        assert_eq!(from_csv(&to_csv(&rows)).unwrap(), rows);
    }

    #[test]
    fn files_round_trip() {
        let dir = scratch("updates-csv");
        let rows = vec![row("flsl", 50, 10, 2)];
        let path = write(&rows, &dir).unwrap();
        assert_eq!(path, dir.join("updates.csv"));
        assert_eq!(read(&path).unwrap(), rows);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_pixels_no_updates_per_pixel() {
        let empty = Row {
            width: 0,
            ..row("flsl", 50, 0, 0)
        };
        assert_eq!(empty.updates_per_pixel(), 0.0);
        assert_eq!(empty.conflicts(), 0.0);
    }

    #[test]
    fn bad_rows_name_their_line_and_column() {
        let row = |fields: &str| format!("{HEADER}\n{fields}\n");
        let cases = [
            (
                "variant,backend,connectivity\n",
                "line 1: not an update count's CSV",
            ),
            (
                &row("flsl,12,2,1,1,45,10,20,2,5"),
                "line 2: connectivity: cannot read `12`",
            ),
            (
                &row("flsl,8,2,1,1,45,-1,20,2,5"),
                "line 2: updates: cannot read `-1`",
            ),
            (&row(",8,2,1,1,45,10,20,2,5"), "line 2: no variant name"),
            (&row("flsl,8"), "line 2: 2 fields where the header has 10"),
        ];
        for (text, expected) in cases {
            let message = from_csv(text).unwrap_err().to_string();
            assert!(message.starts_with(expected), "{message}");
        }
    }
}
