//! The images variants are verified on: MT19937 density / granularity
//! images, every structured pattern, and the real images of `ccl-testdata`.

use std::fmt;

use ccl_core::{BinaryImageBuf, Connectivity, Result, Task};

/// Sizes of the random cases: degenerate ones, sizes around the 32 / 64 /
/// 128 warp and block borders, and odd ones. Its length is odd, so coprime
/// with the 4 granularities: consecutive cases visit every pairing.
const RANDOM_SIZES: &[(usize, usize)] = &[
    (1, 1),
    (31, 7),
    (32, 32),
    (33, 17),
    (63, 63),
    (64, 64),
    (65, 9),
    (100, 1),
    (1, 100),
    (127, 31),
    (128, 128),
    (129, 65),
    (257, 33),
    (300, 200),
    (0, 4),
    // Wider than a GPU span (512 or 1024 columns) and taller than a strip,
    // so that span stitching and strip borders meet.
    (1025, 70),
    (2100, 13),
];

/// Granularities of the random cases.
const RANDOM_GRANULARITIES: &[u32] = &[1, 2, 4, 16];

// Every pairing of size and granularity within |sizes| x |granularities| cases.
const _: () = assert!(RANDOM_SIZES.len() % 2 == 1);

/// Where a case's image comes from, with what it takes to make it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `ccl_testdata::random_image(width, height, density, granularity, seed)`.
    Random {
        /// Width in pixels.
        width: usize,
        /// Height in pixels.
        height: usize,
        /// Percent of cells set, 0..=100.
        density: u32,
        /// Cell side in pixels.
        granularity: u32,
        /// MT19937 seed.
        seed: u32,
    },
    /// `ccl_testdata::pattern(kind, width, height)`.
    Pattern {
        /// The pattern kind, one of `ccl_testdata::pattern_kinds()`.
        kind: &'static str,
        /// Width in pixels.
        width: usize,
        /// Height in pixels.
        height: usize,
    },
    /// One of `ccl_testdata::real_images()`.
    Real {
        /// The image's name.
        name: &'static str,
    },
}

impl Source {
    /// A file name for this image: the real image's own file in the
    /// repository, else `case.png` for `ccl gen` to write (`case.pgm` when
    /// the image has no pixels, which PNG cannot hold).
    pub fn file(&self) -> String {
        match self {
            Source::Real { name } => format!("ccl-testdata/data/real/{name}.png"),
            Source::Random { width, height, .. } | Source::Pattern { width, height, .. }
                if width * height == 0 =>
            {
                "case.pgm".into()
            }
            _ => "case.png".into(),
        }
    }

    /// The `ccl gen` command line that writes this image to `output`; `None`
    /// for real images, which ship with `ccl-testdata` instead.
    pub fn gen_command(&self, output: &str) -> Option<String> {
        match self {
            Source::Random {
                width,
                height,
                density,
                granularity,
                seed,
            } => Some(format!(
                "ccl gen --size {width}x{height} -d {density} -g {granularity} --seed {seed} -o {output}"
            )),
            Source::Pattern {
                kind,
                width,
                height,
            } => Some(format!(
                "ccl gen --pattern {kind} --size {width}x{height} -o {output}"
            )),
            Source::Real { .. } => None,
        }
    }

    /// Draws the image again: the random image or pattern it names, or the
    /// real image read from `ccl-testdata`.
    pub fn image(&self) -> Result<BinaryImageBuf> {
        match *self {
            Source::Random {
                width,
                height,
                density,
                granularity,
                seed,
            } => ccl_testdata::random_image(width, height, density, granularity, seed),
            Source::Pattern {
                kind,
                width,
                height,
            } => ccl_testdata::pattern(kind, width, height),
            Source::Real { name } => ccl_testdata::real_images()?
                .into_iter()
                .find(|real| real.name == name)
                .map(|real| real.image)
                .ok_or_else(|| ccl_core::Error::InvalidArgument(format!("no real image `{name}`"))),
        }
    }

    /// The shell commands that rerun `variant` on this image: `ccl gen` to
    /// write it where needed, then `ccl label` or `ccl analyze`.
    pub fn reproduce(&self, variant: &str, task: Task, connectivity: Connectivity) -> String {
        let file = self.file();
        let rerun = format!("ccl {task} {file} -a {variant} -c {connectivity}");
        match self.gen_command(&file) {
            Some(generate) => format!("{generate} && {rerun}"),
            None => rerun,
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Random {
                width,
                height,
                density,
                granularity,
                seed,
            } => write!(
                f,
                "random image {width}x{height} d={density} g={granularity} seed={seed}"
            ),
            Source::Pattern {
                kind,
                width,
                height,
            } => write!(f, "pattern {kind}-{width}x{height}"),
            Source::Real { name } => write!(f, "real image {name}"),
        }
    }
}

/// One verification image and where it comes from.
#[derive(Clone, Debug)]
pub struct Case {
    /// How to make the image again.
    pub source: Source,
    /// The pixels.
    pub image: BinaryImageBuf,
}

impl Case {
    /// The case of `source`, its image drawn.
    pub fn of(source: Source) -> Result<Self> {
        Ok(Self {
            image: source.image()?,
            source,
        })
    }
}

/// The first `count` random cases, each made when the iterator reaches it.
/// Case `i` has size `i mod |sizes|` of a fixed list (sizes around 32 / 64 /
/// 128 / 1024 and odd ones), granularity 1, 2, 4, 16 by `i mod 4`, density
/// `43 i mod 101` % (every density 0..=100 within 101 cases) and seed `i`.
pub fn random_cases(count: usize) -> impl Iterator<Item = Result<Case>> {
    (0..count).map(|i| {
        let (width, height) = RANDOM_SIZES[i % RANDOM_SIZES.len()];
        let density = (i * 43 % 101) as u32;
        let granularity = RANDOM_GRANULARITIES[i % RANDOM_GRANULARITIES.len()];
        // Seeds are u32 in the protocol; wrapping keeps huge counts valid.
        let seed = i as u32;
        Case::of(Source::Random {
            width,
            height,
            density,
            granularity,
            seed,
        })
    })
}

/// Every pattern kind at every size of `ccl_testdata::PATTERN_SIZES`, each
/// drawn when the iterator reaches it.
pub fn pattern_cases() -> impl Iterator<Item = Result<Case>> {
    ccl_testdata::pattern_kinds().iter().flat_map(|&kind| {
        ccl_testdata::PATTERN_SIZES
            .iter()
            .map(move |&(width, height)| {
                Case::of(Source::Pattern {
                    kind,
                    width,
                    height,
                })
            })
    })
}

/// The patterns that cost iterative labelers the most rounds: one long
/// 1-pixel path (spirals, Hilbert curves, 1-pixel snakes both ways), mazes,
/// and combs whose teeth join only at one end.
pub const WORST_CASE_KINDS: &[&str] = &[
    "spiral",
    "hilbert",
    "maze",
    "meander-h",
    "meander-v",
    "comb-v-bottom",
    "comb-h-right",
];

/// The square sides of the worst cases: powers of 4 from 256 (256, 1024,
/// 4096, …) up to `max_side`, and one odd side, 2^k - 1 for the largest
/// power of two 2^k ≤ `max_side` (e.g. 4095 for 4096), so that no tile,
/// warp or block size divides it.
pub fn worst_case_sides(max_side: usize) -> Vec<usize> {
    let mut sides: Vec<usize> = std::iter::successors(Some(256usize), |side| side.checked_mul(4))
        .take_while(|&side| side <= max_side)
        .collect();
    if max_side >= 256 {
        let largest_power = 1usize << (usize::BITS - 1 - max_side.leading_zeros());
        sides.push(largest_power - 1);
    }
    sides
}

/// Every kind of [`WORST_CASE_KINDS`] at every side of
/// [`worst_case_sides`]`(max_side)`, each drawn when the iterator reaches
/// it; none below a side of 256.
pub fn worst_cases(max_side: usize) -> impl Iterator<Item = Result<Case>> {
    let sides = worst_case_sides(max_side);
    WORST_CASE_KINDS.iter().flat_map(move |&kind| {
        sides.clone().into_iter().map(move |side| {
            Case::of(Source::Pattern {
                kind,
                width: side,
                height: side,
            })
        })
    })
}

/// Every real image of `ccl-testdata`.
pub fn real_cases() -> Result<Vec<Case>> {
    Ok(ccl_testdata::real_images()?
        .into_iter()
        .map(|real| Case {
            source: Source::Real { name: real.name },
            image: real.image,
        })
        .collect())
}

/// `random` random cases, then every pattern, then every real image, each
/// made when the iterator reaches it (memory does not grow with `random`).
pub fn all_cases(random: usize) -> impl Iterator<Item = Result<Case>> {
    let reals = std::iter::once_with(real_cases).flat_map(|reals| match reals {
        Ok(cases) => cases.into_iter().map(Ok).collect::<Vec<_>>(),
        Err(error) => vec![Err(error)],
    });
    random_cases(random).chain(pattern_cases()).chain(reals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_cases_cover_every_density_size_and_granularity() {
        let cases: Vec<Case> = random_cases(101).collect::<Result<_>>().unwrap();
        let mut densities: Vec<u32> = cases
            .iter()
            .map(|c| match c.source {
                Source::Random { density, .. } => density,
                _ => unreachable!("random_cases makes random cases"),
            })
            .collect();
        densities.sort_unstable();
        assert_eq!(densities, (0..=100).collect::<Vec<_>>());
        let pairs = RANDOM_SIZES.len() * RANDOM_GRANULARITIES.len();
        let pairings: std::collections::HashSet<_> = cases[..pairs]
            .iter()
            .map(|c| match c.source {
                Source::Random {
                    width,
                    height,
                    granularity,
                    ..
                } => (width, height, granularity),
                _ => unreachable!("random_cases makes random cases"),
            })
            .collect();
        assert_eq!(pairings.len(), pairs);
    }

    #[test]
    fn random_case_regenerates_from_its_source() {
        let case = &random_cases(20).last().unwrap().unwrap();
        let Source::Random {
            width,
            height,
            density,
            granularity,
            seed,
        } = case.source
        else {
            unreachable!("random_cases makes random cases")
        };
        let again = ccl_testdata::random_image(width, height, density, granularity, seed).unwrap();
        assert_eq!(again, case.image);
        assert_eq!(
            case.source
                .reproduce("ha8-64", Task::Analyze, Connectivity::Eight),
            format!(
                "ccl gen --size {width}x{height} -d {density} -g {granularity} --seed {seed} -o case.png \
                 && ccl analyze case.png -a ha8-64 -c 8"
            )
        );
    }

    #[test]
    fn patterns_and_real_images_reproduce_from_their_names() {
        let spiral = Source::Pattern {
            kind: "spiral",
            width: 33,
            height: 31,
        };
        assert_eq!(
            spiral.reproduce("ha4-32", Task::Label, Connectivity::Four),
            "ccl gen --pattern spiral --size 33x31 -o case.png && ccl label case.png -a ha4-32 -c 4"
        );
        let empty = Source::Pattern {
            kind: "full",
            width: 0,
            height: 5,
        };
        assert!(
            empty
                .reproduce("x", Task::Label, Connectivity::Four)
                .contains("-o case.pgm")
        );
        let coins = Source::Real { name: "coins" };
        assert_eq!(
            coins.reproduce("x", Task::Label, Connectivity::Four),
            "ccl label ccl-testdata/data/real/coins.png -a x -c 4"
        );
        // The path is ccl-testdata's own file, relative to the repository
        // root where the command is meant to run.
        assert_eq!(
            coins.file(),
            format!("{}/coins.png", ccl_testdata::REAL_DIR)
        );
        assert!(
            ccl_testdata::real_images()
                .unwrap()
                .iter()
                .any(|r| r.name == "coins")
        );
    }

    #[test]
    fn worst_cases_are_long_paths_at_growing_sides() {
        assert!(worst_case_sides(255).is_empty());
        assert_eq!(worst_case_sides(256), vec![256, 255]);
        assert_eq!(worst_case_sides(4096), vec![256, 1024, 4096, 4095]);
        assert_eq!(worst_case_sides(5000), vec![256, 1024, 4096, 4095]);
        assert_eq!(worst_case_sides(2048), vec![256, 1024, 2047]);
        let cases: Vec<Case> = worst_cases(256).collect::<Result<_>>().unwrap();
        assert_eq!(cases.len(), 2 * WORST_CASE_KINDS.len());
        for case in &cases {
            assert_eq!(case.image, case.source.image().unwrap(), "{}", case.source);
        }
        let coins = Source::Real { name: "coins" };
        assert!(coins.image().unwrap().width() > 0);
        assert!(Source::Real { name: "nothing" }.image().is_err());
    }

    #[test]
    fn all_cases_make_each_image_when_reached() {
        let count = all_cases(3).count();
        let patterns = ccl_testdata::pattern_kinds().len() * ccl_testdata::PATTERN_SIZES.len();
        assert_eq!(count, 3 + patterns + real_cases().unwrap().len());
        // A huge count costs nothing until iterated.
        assert!(all_cases(usize::MAX).next().unwrap().is_ok());
    }
}
