//! The volume sweep's measurements as CSV (`volume-sweep.csv`), one row
//! per variant × connectivity × task × granularity × density, written as
//! the sweep goes and read back.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use ccl_core::Connectivity;

use super::VolumeMeasurement;
use crate::sweep::SweepError;
use crate::sweep::csv::{
    CsvError, fields, format_stages, parse, parse_lines, parse_ms, parse_stages, read_file,
};

/// The CSV header.
pub const HEADER: &str = "variant,backend,connectivity,task,width,height,depth,granularity,density,reps,median_ms,min_ms,gvox_per_s,transfer_ms,stages";

/// The file a volume sweep writes in its folder.
pub const FILE_NAME: &str = "volume-sweep.csv";

/// The measurements as CSV text with a header line. The `stages` column
/// lists `stage=ms` pairs separated by `;`, a stage that iterates written
/// `stage (N rounds)=ms`, as the image sweep's CSV writes them.
pub fn to_csv(measurements: &[VolumeMeasurement]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for m in measurements {
        out.push_str(&row(m));
    }
    out
}

/// One measurement's line of [`to_csv`], its newline included.
fn row(m: &VolumeMeasurement) -> String {
    let stages = format_stages(&m.stages);
    format!(
        "{},{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{:.6},{}\n",
        m.variant,
        m.backend,
        m.connectivity,
        m.task,
        m.width,
        m.height,
        m.depth,
        m.granularity,
        m.density,
        m.reps,
        m.median_ms,
        m.min_ms,
        m.gvox_per_s(),
        m.transfer_ms,
        stages
    )
}

/// The measurements in CSV text that [`to_csv`] wrote: its inverse, up to
/// the six decimals written. The `gvox_per_s` column is derived from the
/// others, so it is not read.
///
/// # Errors
/// The first line that is not the header or not a row of [`HEADER`]'s
/// columns, a connectivity that is not a volume's (6, 18 or 26), or a time
/// that is negative or not a number.
pub fn from_csv(text: &str) -> Result<Vec<VolumeMeasurement>, CsvError> {
    parse_lines(text, HEADER, "a volume sweep's CSV", parse_row)
}

/// Reads a volume sweep's CSV, as [`VolumeCsvWriter`] saved it.
///
/// # Errors
/// The file cannot be read, or is not what [`from_csv`] reads.
pub fn read(path: &Path) -> Result<Vec<VolumeMeasurement>, SweepError> {
    read_file(path, from_csv)
}

/// [`FILE_NAME`] written as a sweep goes: the header when it is created,
/// before anything is timed (a folder that cannot be written fails at once,
/// not after the timing), then each volume's rows as soon as its answers
/// are checked, flushed. An interrupted sweep leaves the rows of the
/// volumes it finished, which [`read`] reads like any other.
pub struct VolumeCsvWriter {
    path: PathBuf,
    file: File,
}

impl VolumeCsvWriter {
    /// Creates `dir` if missing and [`FILE_NAME`] in it (replacing an
    /// earlier one), and writes the header.
    ///
    /// # Errors
    /// The folder or the file cannot be created or written.
    pub fn create(dir: &Path) -> Result<Self, SweepError> {
        std::fs::create_dir_all(dir).map_err(SweepError::io(dir))?;
        let path = dir.join(FILE_NAME);
        let file = File::create(&path).map_err(SweepError::io(&path))?;
        let mut writer = Self { path, file };
        writer.write(&format!("{HEADER}\n"))?;
        Ok(writer)
    }

    /// Appends the rows of `measurements`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append(&mut self, measurements: &[VolumeMeasurement]) -> Result<(), SweepError> {
        let rows: String = measurements.iter().map(row).collect();
        self.write(&rows)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, text: &str) -> Result<(), SweepError> {
        // One write per volume, unbuffered: what a reader or an interrupted
        // sweep sees ends at a whole row.
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(SweepError::io(&self.path))
    }
}

fn parse_row(row: &str) -> Result<VolumeMeasurement, String> {
    let [
        variant,
        backend,
        connectivity,
        task,
        width,
        height,
        depth,
        granularity,
        density,
        reps,
        median_ms,
        min_ms,
        _gvox_per_s,
        transfer_ms,
        stages,
    ] = fields(row, HEADER)?;
    let connectivity: Connectivity = parse("connectivity", connectivity)?;
    if connectivity.dimensions() != 3 {
        return Err(format!(
            "connectivity: {connectivity} is an image's; a volume's is 6, 18 or 26"
        ));
    }
    Ok(VolumeMeasurement {
        variant: variant.to_string(),
        backend: parse("backend", backend)?,
        connectivity,
        task: parse("task", task)?,
        width: parse("width", width)?,
        height: parse("height", height)?,
        depth: parse("depth", depth)?,
        granularity: parse("granularity", granularity)?,
        density: parse("density", density)?,
        reps: parse("reps", reps)?,
        median_ms: parse_ms("median_ms", median_ms)?,
        min_ms: parse_ms("min_ms", min_ms)?,
        transfer_ms: parse_ms("transfer_ms", transfer_ms)?,
        stages: parse_stages(stages)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::StageMedian;
    use ccl_core::{Backend, Task};

    fn measurement(variant: &str, stages: &[(&str, f64)]) -> VolumeMeasurement {
        VolumeMeasurement {
            variant: variant.to_string(),
            backend: Backend::Cuda,
            connectivity: Connectivity::Eighteen,
            task: Task::Analyze,
            width: 200,
            height: 100,
            depth: 50,
            granularity: 4,
            density: 14,
            reps: 10,
            median_ms: 2.0,
            min_ms: 1.5,
            transfer_ms: 0.25,
            stages: crate::sweep::stages_of(stages),
        }
    }

    #[test]
    fn one_row_per_measurement_with_stages() {
        let csv = to_csv(&[measurement("v", &[("link", 1.5), ("labels", 0.5)])]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], HEADER);
        // 10⁶ voxels in 2 ms: 0.5 Gvox/s.
        assert_eq!(
            lines[1],
            "v,cuda,18,analyze,200,100,50,4,14,10,2.000000,1.500000,0.500000,0.250000,link=1.500000;labels=0.500000"
        );
        assert_eq!(lines[1].split(',').count(), HEADER.split(',').count());
    }

    #[test]
    fn reading_inverts_writing() {
        let measurements = vec![
            measurement("playne", &[("link", 1.5), ("labels", 0.5)]),
            VolumeMeasurement {
                backend: Backend::Cpu,
                connectivity: Connectivity::Six,
                task: Task::Label,
                median_ms: 0.123456,
                ..measurement("cpu-rle", &[])
            },
            VolumeMeasurement {
                connectivity: Connectivity::TwentySix,
                stages: vec![StageMedian {
                    stage: "iterate".into(),
                    ms: 3.0,
                    rounds: Some(12),
                }],
                ..measurement("le", &[])
            },
        ];
        let text = to_csv(&measurements);
        assert_eq!(from_csv(&text).unwrap(), measurements);
        assert!(text.contains(",iterate (12 rounds)=3.000000\n"), "{text}");
    }

    #[test]
    fn the_writer_saves_rows_as_they_come_and_read_gives_them_back() {
        let dir = std::env::temp_dir().join(format!("ccl-volume-csv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut writer = VolumeCsvWriter::create(&dir.join("out")).unwrap();
        assert_eq!(writer.path(), dir.join("out").join(FILE_NAME));
        assert_eq!(read(writer.path()).unwrap(), []);
        let rows = [measurement("a", &[("total", 2.0)]), measurement("b", &[])];
        writer.append(&rows[..1]).unwrap();
        writer.append(&rows[1..]).unwrap();
        assert_eq!(read(writer.path()).unwrap(), rows);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_rows_name_their_line_and_column() {
        let row = |fields: &str| format!("{HEADER}\n{fields}\n");
        let cases = [
            (
                "variant,backend,connectivity\n".to_string(),
                "line 1: not a volume sweep's CSV",
            ),
            (
                row("v,gpu,6,cca,2,1,1,4,45,10,2,1.5,1,0.25,"),
                "line 2: backend: cannot read `gpu`",
            ),
            (
                row("v,cuda,8,cca,2,1,1,4,45,10,2,1.5,1,0.25,"),
                "line 2: connectivity: 8 is an image's",
            ),
            (
                row("v,cuda,6,cca,2,1,1,4,45,10,-2,1.5,1,0.25,"),
                "line 2: median_ms: `-2` is not a time in ms",
            ),
            (
                row("v,cuda,6,cca,2,1,1,4,45,10,2,1.5,1,0.25,link"),
                "line 2: stages: expected stage=ms, not `link`",
            ),
            (row("v,cuda,6"), "line 2: 3 fields where the header has 15"),
        ];
        for (text, expected) in cases {
            let message = from_csv(&text).unwrap_err().to_string();
            assert!(message.starts_with(expected), "{message}");
        }
    }
}
