//! Memory sizes as people write them (`8GiB`, `512MiB`, `2GB`): the one
//! parser of the CLI's `--max-gpu-memory` and Python's `max_gpu_memory=`.

use ccl::{Error, Result};

fn invalid(message: String) -> Error {
    Error::InvalidArgument(message)
}

/// A memory size in bytes, as `--max-gpu-memory` and Python's
/// `max_gpu_memory=` take it: a number with an optional unit, B, KiB, MiB, GiB, TiB
/// (powers of 1024; K, M, G, T too) or kB, MB, GB, TB (powers of 1000).
pub fn parse_size(text: &str) -> Result<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().map_err(|_| {
        invalid(format!(
            "not a size: {text:?} (say 8GiB, 512MiB or 1000000000)"
        ))
    })?;
    let scale: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "K" | "KiB" => 1024.0,
        "M" | "MiB" => 1024.0_f64.powi(2),
        "G" | "GiB" => 1024.0_f64.powi(3),
        "T" | "TiB" => 1024.0_f64.powi(4),
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        other => {
            return Err(invalid(format!(
                "unknown unit {other:?} in {text:?}: B, KiB, MiB, GiB, TiB, kB, MB, GB or TB"
            )));
        }
    };
    let bytes = number * scale;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(invalid(format!(
            "{text:?} is not a size of at least one byte"
        )));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_and_without_units() {
        assert_eq!(parse_size("8GiB").unwrap(), 8 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("0").is_err());
        assert!(parse_size("8 parsecs").is_err());
        assert!(parse_size("GiB").is_err());
    }
}
