//! Small real images with known component counts, embedded in the crate so
//! that test binaries carry them to any machine (the GPU machine included).
//!
//! The images are 8-bit gray PNGs holding only 0 and 255; their names and
//! sizes are those of scikit-image's sample images (`page`, `text`, `coins`,
//! `horse`, `hubble_deep_field`, `cell`), binarized. `components.json` gives,
//! per connectivity, the component count, the largest area and the
//! foreground count, as an independent labeler found them.

use std::path::Path;

use ccl_core::{BinaryImageBuf, Error, Result};

/// One real image and what is known about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RealImage {
    /// The image's name, e.g. `coins`.
    pub name: &'static str,
    /// The pixels: nonzero PNG samples are foreground, stored as 1.
    pub image: BinaryImageBuf,
    /// Number of components with 4-connectivity.
    pub components_4: usize,
    /// Number of components with 8-connectivity.
    pub components_8: usize,
    /// Number of foreground pixels.
    pub foreground: usize,
    /// Area of the largest component with 4-connectivity.
    pub max_area_4: usize,
    /// Area of the largest component with 8-connectivity.
    pub max_area_8: usize,
}

/// Where the embedded files live, relative to the repository root.
pub const REAL_DIR: &str = "ccl-testdata/data/real";

const PNGS: &[(&str, &[u8])] = &[
    ("cell", include_bytes!("../data/real/cell.png")),
    ("coins", include_bytes!("../data/real/coins.png")),
    ("horse", include_bytes!("../data/real/horse.png")),
    ("hubble", include_bytes!("../data/real/hubble.png")),
    ("page", include_bytes!("../data/real/page.png")),
    ("text", include_bytes!("../data/real/text.png")),
];

const COMPONENTS_JSON: &str = include_str!("../data/real/components.json");

/// Every embedded real image, sorted by name, decoded and paired with its
/// counts from `components.json`.
///
/// ```
/// let images = ccl_testdata::real_images()?;
/// let coins = images.iter().find(|r| r.name == "coins").unwrap();
/// assert_eq!((coins.image.width(), coins.image.height()), (384, 303));
/// assert_eq!(coins.image.view().foreground_count(), coins.foreground);
/// assert!(coins.components_4 > coins.components_8);
/// # Ok::<(), ccl_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::Decode`] if an embedded file does not decode or disagrees with
/// `components.json` (size, foreground count): a broken build, never user
/// input.
pub fn real_images() -> Result<Vec<RealImage>> {
    let json_path = Path::new(REAL_DIR).join("components.json");
    let bad_json = |message: String| Error::Decode {
        path: json_path.clone(),
        message,
    };
    let counts: serde_json::Value =
        serde_json::from_str(COMPONENTS_JSON).map_err(|e| bad_json(e.to_string()))?;
    PNGS.iter()
        .map(|&(name, png)| {
            let entry = &counts[name];
            let number = |keys: &[&str]| {
                keys.iter()
                    .fold(entry, |value, key| &value[key])
                    .as_u64()
                    .map(|n| n as usize)
                    .ok_or_else(|| bad_json(format!("no number at {name}.{}", keys.join("."))))
            };
            let path = Path::new(REAL_DIR).join(format!("{name}.png"));
            let image = ccl_io::decode(png, &path)?;
            let real = RealImage {
                name,
                components_4: number(&["4", "components"])?,
                components_8: number(&["8", "components"])?,
                foreground: number(&["4", "fg"])?,
                max_area_4: number(&["4", "max_area"])?,
                max_area_8: number(&["8", "max_area"])?,
                image,
            };
            // The counts are only worth testing against if they describe
            // exactly these pixels.
            let size = (number(&["width"])?, number(&["height"])?);
            let found = (real.image.width(), real.image.height());
            let foreground = real.image.view().foreground_count();
            if size != found || number(&["8", "fg"])? != real.foreground {
                return Err(bad_json(format!(
                    "{name}: size {size:?} or foreground counts disagree with the PNG ({found:?})"
                )));
            }
            if foreground != real.foreground {
                return Err(Error::Decode {
                    path,
                    message: format!(
                        "{foreground} foreground pixels, components.json says {}",
                        real.foreground
                    ),
                });
            }
            Ok(real)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::{Analyzer, Connectivity, Labeler};
    use ccl_cpu::UnionFind;

    #[test]
    fn every_image_matches_components_json() {
        let images = real_images().unwrap();
        let names: Vec<_> = images.iter().map(|r| r.name).collect();
        assert_eq!(names, ["cell", "coins", "horse", "hubble", "page", "text"]);
        for real in &images {
            let view = real.image.view();
            assert_eq!(view.foreground_count(), real.foreground, "{}", real.name);
            for (connectivity, components, max_area) in [
                (Connectivity::Four, real.components_4, real.max_area_4),
                (Connectivity::Eight, real.components_8, real.max_area_8),
            ] {
                let labels = UnionFind.label(&view, connectivity).unwrap();
                assert_eq!(
                    labels.component_count(),
                    components,
                    "{} {connectivity}",
                    real.name
                );
                let stats = UnionFind.analyze(&view, connectivity).unwrap();
                assert_eq!(stats.len(), components, "{} {connectivity}", real.name);
                let largest = stats.iter().map(|s| s.area as usize).max().unwrap_or(0);
                assert_eq!(largest, max_area, "{} {connectivity}", real.name);
                let area: u64 = stats.iter().map(|s| u64::from(s.area)).sum();
                assert_eq!(
                    area as usize, real.foreground,
                    "{} {connectivity}",
                    real.name
                );
            }
        }
    }

    #[test]
    fn every_json_entry_has_an_image() {
        let counts: serde_json::Value = serde_json::from_str(COMPONENTS_JSON).unwrap();
        let mut in_json: Vec<_> = counts.as_object().unwrap().keys().cloned().collect();
        in_json.sort();
        let embedded: Vec<_> = PNGS.iter().map(|&(name, _)| name.to_string()).collect();
        assert_eq!(in_json, embedded);
    }
}
