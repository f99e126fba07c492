//! The sweep's measurements as CSV, one row per variant × connectivity ×
//! task × granularity × density, for plotting and comparison elsewhere, and
//! read back for re-plotting a saved sweep.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::{Measurement, StageMedian, SweepError};

/// The CSV header.
pub const HEADER: &str = "variant,backend,connectivity,task,width,height,granularity,density,reps,median_ms,min_ms,gpx_per_s,transfer_ms,stages,pattern";

/// The header of sweeps saved before pattern images (no `pattern`
/// column), still read.
const HEADER_WITHOUT_PATTERN: &str = "variant,backend,connectivity,task,width,height,granularity,density,reps,median_ms,min_ms,gpx_per_s,transfer_ms,stages";

/// The measurements as CSV text with a header line. The `stages` column
/// lists `stage=ms` pairs separated by `;`, a stage that iterates written
/// `stage (N rounds)=ms`; `pattern` is empty for random images.
pub fn to_csv(measurements: &[Measurement]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for m in measurements {
        out.push_str(&row(m));
    }
    out
}

/// The `stages` column of both sweeps' CSVs: `stage=ms` pairs separated by
/// `;`, `stage (N rounds)=ms` for a stage that iterates ([`parse_stages`]
/// reads it back).
pub(crate) fn format_stages(stages: &[StageMedian]) -> String {
    stages
        .iter()
        .map(|s| match s.rounds {
            Some(rounds) => format!("{} ({rounds} rounds)={:.6}", s.stage, s.ms),
            None => format!("{}={:.6}", s.stage, s.ms),
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// One measurement's line of [`to_csv`], its newline included.
fn row(m: &Measurement) -> String {
    {
        let stages = format_stages(&m.stages);
        format!(
            "{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{:.6},{},{}\n",
            m.variant,
            m.backend,
            m.connectivity,
            m.task,
            m.width,
            m.height,
            m.granularity,
            m.density,
            m.reps,
            m.median_ms,
            m.min_ms,
            m.gpx_per_s(),
            m.transfer_ms,
            stages,
            m.pattern.as_deref().unwrap_or("")
        )
    }
}

/// Where and how CSV text differs from what [`to_csv`] writes.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct CsvError {
    /// Line number, from 1.
    pub line: usize,
    /// What is wrong on that line.
    pub message: String,
}

/// The measurements in CSV text that [`to_csv`] wrote: its inverse, up to
/// the six decimals written. The `gpx_per_s` column is derived from the
/// others, so it is not read. CSV of earlier sweeps, without the `pattern`
/// column, reads as random images.
///
/// # Errors
/// The first line that is not the header or not a row of [`HEADER`]'s
/// columns, or a time that is negative or not a number.
pub fn from_csv(text: &str) -> Result<Vec<Measurement>, CsvError> {
    if text.lines().next().map(str::trim_end) == Some(HEADER_WITHOUT_PATTERN) {
        return parse_lines(text, HEADER_WITHOUT_PATTERN, "a sweep's CSV", |row| {
            parse_row(&format!("{row},"))
        });
    }
    parse_lines(text, HEADER, "a sweep's CSV", parse_row)
}

/// `sweep.csv` written as a sweep goes: the header when it is created,
/// before anything is timed (a folder that cannot be written fails at once,
/// not after the timing), then each image's rows as soon as its answers are
/// checked, flushed. An interrupted sweep leaves the rows of the images it
/// finished, which [`read`] reads like any other.
pub struct CsvWriter {
    path: PathBuf,
    file: File,
}

impl CsvWriter {
    /// Creates `dir` if missing and `sweep.csv` in it (replacing an earlier
    /// one), and writes the header.
    ///
    /// # Errors
    /// The folder or the file cannot be created or written.
    pub fn create(dir: &Path) -> Result<Self, SweepError> {
        std::fs::create_dir_all(dir).map_err(SweepError::io(dir))?;
        let path = dir.join("sweep.csv");
        let file = File::create(&path).map_err(SweepError::io(&path))?;
        let mut writer = Self { path, file };
        writer.write(&format!("{HEADER}\n"))?;
        Ok(writer)
    }

    /// Appends the rows of `measurements`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append(&mut self, measurements: &[Measurement]) -> Result<(), SweepError> {
        let rows: String = measurements.iter().map(row).collect();
        self.write(&rows)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, text: &str) -> Result<(), SweepError> {
        // One write per image, unbuffered: what a reader or an interrupted
        // sweep sees ends at a whole row.
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(SweepError::io(&self.path))
    }
}

/// Reads a sweep's CSV, as [`CsvWriter`] saved it.
pub fn read(path: &Path) -> Result<Vec<Measurement>, SweepError> {
    read_file(path, from_csv)
}

/// The rows of CSV `text` whose first line is `header` (else an error
/// saying the text is not `what`), one per non-empty line through
/// `parse_row`; errors carry their line number.
pub(crate) fn parse_lines<T>(
    text: &str,
    header: &str,
    what: &str,
    parse_row: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, CsvError> {
    let mut lines = text.lines().zip(1..);
    if lines.next().map(|(first, _)| first.trim_end()) != Some(header) {
        return Err(CsvError {
            line: 1,
            message: format!("not {what}: the first line must be `{header}`"),
        });
    }
    lines
        .filter(|(row, _)| !row.trim().is_empty())
        .map(|(row, line)| parse_row(row.trim_end()).map_err(|message| CsvError { line, message }))
        .collect()
}

/// Writes `text` as `dir/name` (the folder created if missing) and returns
/// the file's path.
pub(crate) fn write_file(dir: &Path, name: &str, text: &str) -> Result<PathBuf, SweepError> {
    std::fs::create_dir_all(dir).map_err(SweepError::io(dir))?;
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(SweepError::io(&path))?;
    Ok(path)
}

/// Reads the file at `path` and parses it with `from_csv`.
pub(crate) fn read_file<T>(
    path: &Path,
    from_csv: impl Fn(&str) -> Result<Vec<T>, CsvError>,
) -> Result<Vec<T>, SweepError> {
    let text = std::fs::read_to_string(path).map_err(SweepError::io(path))?;
    from_csv(&text).map_err(|source| SweepError::Csv {
        path: path.to_path_buf(),
        source,
    })
}

fn parse_row(row: &str) -> Result<Measurement, String> {
    let [
        variant,
        backend,
        connectivity,
        task,
        width,
        height,
        granularity,
        density,
        reps,
        median_ms,
        min_ms,
        _gpx_per_s,
        transfer_ms,
        stages,
        pattern,
    ] = fields(row, HEADER)?;
    Ok(Measurement {
        variant: variant.to_string(),
        backend: parse("backend", backend)?,
        connectivity: parse("connectivity", connectivity)?,
        task: parse("task", task)?,
        width: parse("width", width)?,
        height: parse("height", height)?,
        granularity: parse("granularity", granularity)?,
        density: parse("density", density)?,
        reps: parse("reps", reps)?,
        median_ms: parse_ms("median_ms", median_ms)?,
        min_ms: parse_ms("min_ms", min_ms)?,
        transfer_ms: parse_ms("transfer_ms", transfer_ms)?,
        stages: parse_stages(stages)?,
        pattern: (!pattern.is_empty()).then(|| pattern.to_string()),
    })
}

/// `text` read as a `T`, or what cannot be read in `column`.
/// The `N` comma-separated fields of a data row of a CSV with `header`; an
/// error where the count differs or the first field (the variant's name) is
/// empty.
pub(crate) fn fields<'a, const N: usize>(
    row: &'a str,
    header: &str,
) -> Result<[&'a str; N], String> {
    let fields: Vec<&str> = row.split(',').collect();
    let count = fields.len();
    let fields: [&str; N] = fields.try_into().map_err(|_| {
        format!(
            "{count} fields where the header has {}",
            header.split(',').count()
        )
    })?;
    if fields.first().is_some_and(|variant| variant.is_empty()) {
        return Err("no variant name".into());
    }
    Ok(fields)
}

pub(crate) fn parse<T: FromStr>(column: &str, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{column}: cannot read `{text}`"))
}

/// A time in ms: finite and not negative, as every plot and summary assumes
/// (the volume sweep's CSV reads its times by this rule too).
pub(crate) fn parse_ms(column: &str, text: &str) -> Result<f64, String> {
    let ms: f64 = parse(column, text)?;
    if ms.is_finite() && ms >= 0.0 {
        Ok(ms)
    } else {
        Err(format!("{column}: `{text}` is not a time in ms"))
    }
}

/// `stage=ms` pairs separated by `;` (`stage (N rounds)=ms` for a stage
/// that iterates), or nothing: the `stages` column of both sweeps' CSVs.
pub(crate) fn parse_stages(text: &str) -> Result<Vec<StageMedian>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(';')
        .map(|pair| {
            let (stage, ms) = pair
                .split_once('=')
                .ok_or_else(|| format!("stages: expected stage=ms, not `{pair}`"))?;
            let (name, rounds) = match stage
                .strip_suffix(" rounds)")
                .and_then(|rest| rest.rsplit_once(" ("))
            {
                Some((name, count)) => {
                    let rounds = count
                        .parse()
                        .map_err(|_| format!("stages: `{stage}` has no whole round count"))?;
                    (name, Some(rounds))
                }
                None => (stage, None),
            };
            Ok(StageMedian {
                stage: name.to_string(),
                ms: parse_ms(stage, ms)?,
                rounds,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::{Connectivity, Task};

    fn measurement(variant: &str, stages: &[(&str, f64)]) -> Measurement {
        Measurement {
            variant: variant.to_string(),
            backend: ccl_core::Backend::Cuda,
            connectivity: Connectivity::Eight,
            task: Task::Analyze,
            width: 2000,
            height: 1000,
            granularity: 4,
            density: 45,
            reps: 10,
            median_ms: 2.0,
            min_ms: 1.5,
            transfer_ms: 0.25,
            pattern: None,
            stages: crate::sweep::stages_of(stages),
        }
    }

    #[test]
    fn one_row_per_measurement_with_stages() {
        let csv = to_csv(&[measurement("v", &[("strip", 1.5), ("merge", 0.5)])]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], HEADER);
        assert_eq!(
            lines[1],
            "v,cuda,8,analyze,2000,1000,4,45,10,2.000000,1.500000,1.000000,0.250000,strip=1.500000;merge=0.500000,"
        );
        assert_eq!(lines[1].split(',').count(), HEADER.split(',').count());
    }

    #[test]
    fn reading_inverts_writing() {
        let measurements = vec![
            measurement("ha4-64", &[("strip", 1.5), ("merge", 0.5)]),
            Measurement {
                backend: ccl_core::Backend::Cpu,
                connectivity: Connectivity::Four,
                task: Task::Label,
                median_ms: 0.123456,
                ..measurement("cpu-uf", &[])
            },
            Measurement {
                granularity: 0,
                density: 0,
                pattern: Some("spiral".into()),
                stages: vec![StageMedian {
                    stage: "iterate".into(),
                    ms: 3.0,
                    rounds: Some(12),
                }],
                ..measurement("le", &[])
            },
        ];
        assert_eq!(from_csv(&to_csv(&measurements)).unwrap(), measurements);
        // The rounds are written as sweeps have always written them.
        assert!(to_csv(&measurements).contains(",iterate (12 rounds)=3.000000,spiral"));
        // A sweep saved before the pattern column reads as random images.
        let old = to_csv(&measurements[..2])
            .lines()
            .map(|line| {
                line.strip_suffix(",")
                    .unwrap_or(line)
                    .replace(",stages,pattern", ",stages")
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(from_csv(&old).unwrap(), measurements[..2]);
    }

    #[test]
    fn bad_rows_name_their_line_and_column() {
        let row = |fields: &str| format!("{HEADER}\n{fields}\n");
        let cases = [
            ("variant,backend\n", "line 1: not a sweep's CSV"),
            (
                &row("v,gpu,8,cca,2,1,4,45,10,2,1.5,1,0.25,,"),
                "line 2: backend: cannot read `gpu`",
            ),
            (
                &row("v,cuda,12,cca,2,1,4,45,10,2,1.5,1,0.25,,"),
                "line 2: connectivity: cannot read `12`",
            ),
            (
                &row("v,cuda,8,cca,2,1,4,45,10,NaN,1.5,1,0.25,,"),
                "line 2: median_ms: `NaN` is not a time in ms",
            ),
            (
                &row("v,cuda,8,cca,2,1,4,45,10,2,1.5,1,0.25,strip,"),
                "line 2: stages: expected stage=ms, not `strip`",
            ),
            (&row("v,cuda,8"), "line 2: 3 fields where the header has 15"),
        ];
        for (text, expected) in cases {
            let message = from_csv(text).unwrap_err().to_string();
            assert!(message.starts_with(expected), "{message}");
        }
    }
}
