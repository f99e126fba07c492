//! Argument types and choices shared by several commands.

use std::str::FromStr;

use ccl_core::{Algorithm, Connectivity, Task};

/// `WIDTHxHEIGHT`, e.g. `2048x2048`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: usize,
    pub height: usize,
}

impl FromStr for Size {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || format!("expected WIDTHxHEIGHT, e.g. 2048x2048, not `{text}`");
        let (width, height) = text.split_once(['x', 'X']).ok_or_else(invalid)?;
        Ok(Size {
            width: width.trim().parse().map_err(|_| invalid())?,
            height: height.trim().parse().map_err(|_| invalid())?,
        })
    }
}

/// The image, algorithm and connectivity that `label` and `analyze` take.
#[derive(clap::Args)]
pub struct Input {
    /// Input image (PNG, PGM/PBM/PPM, TIFF); nonzero pixels are foreground.
    pub image: std::path::PathBuf,
    /// Algorithm (see `ccl list`); default: the preferred one available here.
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// Connectivity: 4 or 8.
    #[arg(short, long, value_name = "4|8", default_value = "8", value_parser = parse_connectivity)]
    pub connectivity: Connectivity,
}

impl Input {
    /// The loaded image and the algorithm that will run `task` on it.
    pub fn load(
        &self,
        task: Task,
    ) -> Result<(ccl_core::BinaryImageBuf, &'static Algorithm), crate::Error> {
        let image = ccl_testdata::load_image(&self.image)?;
        let algorithm = choose_algorithm(self.algorithm.as_deref(), task, self.connectivity)?;
        Ok((image, algorithm))
    }
}

/// Parses `4`, `8`, `four` or `eight`.
pub fn parse_connectivity(text: &str) -> Result<Connectivity, String> {
    text.parse()
        .map_err(|_| format!("expected 4 or 8 (or four, eight), not `{text}`"))
}

/// The algorithm a user named, or the preferred available one for `task`
/// and `connectivity`; either way one that can run it here.
pub fn choose_algorithm(
    name: Option<&str>,
    task: Task,
    connectivity: Connectivity,
) -> ccl_core::Result<&'static Algorithm> {
    let Some(name) = name else {
        return ccl::default_algorithm(task, connectivity);
    };
    let algorithm = ccl::find(name)?;
    algorithm.check_task(task)?;
    algorithm.check_connectivity(connectivity)?;
    algorithm.probe()?;
    Ok(algorithm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_reject() {
        assert_eq!(
            "640x480".parse::<Size>(),
            Ok(Size {
                width: 640,
                height: 480
            })
        );
        assert!("640".parse::<Size>().is_err());
        assert!("x480".parse::<Size>().is_err());
        assert!("-1x3".parse::<Size>().is_err());
    }
}
