//! The sweep's measurements as CSV, one row per variant × connectivity ×
//! task × granularity × density, for plotting and comparison elsewhere.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::{Measurement, SweepError};

/// The CSV header.
pub const HEADER: &str = "variant,backend,connectivity,mode,width,height,granularity,density,reps,median_ms,min_ms,gpx_per_s,transfer_ms,stages";

/// The measurements as CSV text with a header line. The `stages` column
/// lists `stage=ms` pairs separated by `;`.
pub fn to_csv(measurements: &[Measurement]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for m in measurements {
        let stages = m
            .stages
            .iter()
            .map(|s| format!("{}={:.6}", s.stage, s.ms))
            .collect::<Vec<_>>()
            .join(";");
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{:.6},{}",
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
            stages
        );
    }
    out
}

/// Writes `sweep.csv` into `dir` (created if missing) and returns its path.
pub fn write(measurements: &[Measurement], dir: &Path) -> Result<PathBuf, SweepError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SweepError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let path = dir.join("sweep.csv");
    std::fs::write(&path, to_csv(measurements)).map_err(io_error(&path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::{Backend, Connectivity, StageTime, Task};

    #[test]
    fn one_row_per_measurement_with_stages() {
        let m = Measurement {
            variant: "v",
            backend: Backend::Cuda,
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
            stages: vec![
                StageTime {
                    stage: "strip",
                    ms: 1.5,
                },
                StageTime {
                    stage: "merge",
                    ms: 0.5,
                },
            ],
        };
        let csv = to_csv(&[m]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], HEADER);
        assert_eq!(
            lines[1],
            "v,cuda,8,cca,2000,1000,4,45,10,2.000000,1.500000,1.000000,0.250000,strip=1.500000;merge=0.500000"
        );
        assert_eq!(lines[1].split(',').count(), HEADER.split(',').count());
    }
}
