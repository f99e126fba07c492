//! Structured patterns: the shapes that break CCL algorithms.
//!
//! Each kind targets a failure mode: single pixels at the corners (index
//! arithmetic at the edges), checkerboards (the most components a 4-connected
//! image can have), staircases (an equivalence on every row of a two-pass
//! scan), concavities (two arms that meet only on the last row, so the merge
//! comes late), spirals and Hilbert curves (one component with a very long
//! path, the worst case for label propagation; Kasagi et al.'s test images),
//! mazes (one tree of 1-pixel corridors whose paths wind through the whole
//! image), and combs of 1-pixel stripes that cross 32/64-pixel warp and
//! 4-row strip borders. Every kind is drawn at every size of [`PATTERN_SIZES`], chosen around
//! those borders.

use ccl_core::{BinaryImageBuf, Error, Result};
use rand_mt::Mt;

/// One structured test image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// `kind-WxH`, e.g. `checkerboard-33x31`.
    pub name: String,
    /// The pixels, foreground stored as 1.
    pub image: BinaryImageBuf,
}

/// The sizes `(width, height)` at which [`patterns`] draws every kind:
/// degenerate (0, 1 and 1-wide / 1-high), around the 32 / 64 / 128 warp
/// and block borders, around the 4-row strip border, odd, and one wider
/// than a GPU warp's 1024-pixel pass over a row.
pub const PATTERN_SIZES: &[(usize, usize)] = &[
    (0, 0),
    (0, 5),
    (5, 0),
    (1, 1),
    (1, 7),
    (7, 1),
    (2, 2),
    (31, 31),
    (32, 32),
    (33, 33),
    (33, 31),
    (63, 5),
    (64, 64),
    (65, 3),
    (127, 9),
    (128, 128),
    (129, 130),
    (3, 129),
    (200, 1),
    (1, 200),
    (37, 53),
    // Wider than one iteration of FLSL's run kernel (1024 pixels), where
    // checkerboards and combs end more runs in an iteration (512) than the
    // kernel's stage holds.
    (1100, 3),
];

type Generator = fn(usize, usize) -> Result<BinaryImageBuf>;

/// Every kind and its generator. Kinds that are a formula of the pixel use
/// `from_fn`; the spiral and the Hilbert curve are drawn.
const KINDS: &[(&str, Generator)] = &[
    ("empty", |w, h| BinaryImageBuf::new(w, h)),
    ("full", |w, h| BinaryImageBuf::from_fn(w, h, |_, _| true)),
    ("pixel-top-left", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| (x, y) == (0, 0))
    }),
    ("pixel-top-right", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| (x + 1, y) == (w, 0))
    }),
    ("pixel-bottom-left", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| (x, y + 1) == (0, h))
    }),
    ("pixel-bottom-right", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| (x + 1, y + 1) == (w, h))
    }),
    // Every other row: 1-high components (the whole image when h = 1).
    ("hline", |w, h| {
        BinaryImageBuf::from_fn(w, h, |_, y| y % 2 == 0)
    }),
    // Every other column: 1-wide components that span every row.
    ("vline", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, _| x % 2 == 0)
    }),
    // 4-connectivity: every pixel its own component; 8: one component.
    ("checkerboard", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| (x + y) % 2 == 0)
    }),
    // 2-wide steps descending to the left: on every row the run's first
    // pixel has no neighbour above or left, takes a new provisional label,
    // and its right neighbour then joins it to the band above.
    ("stairs", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| (x + y) % 4 < 2)
    }),
    // 1-pixel anti-diagonals: lines in 8-connectivity, isolated pixels in 4.
    ("diagonals", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| (x + y) % 3 == 0)
    }),
    // Nested U shapes opening upward: each U's arms meet only on its bottom
    // row, so a top-down scan merges them last.
    ("nested-u", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| x.min(w - 1 - x).min(h - 1 - y) % 2 == 0)
    }),
    // Nested ∩ shapes opening downward: late merges for bottom-up passes
    // and for algorithms that propagate labels upward.
    ("nested-n", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| x.min(w - 1 - x).min(y) % 2 == 0)
    }),
    ("spiral", spiral),
    ("hilbert", hilbert),
    ("maze", maze),
    // Combs of 1-pixel columns (x even) joined by a 1-pixel bar: on the
    // bottom row (teeth up, merged on the last row), on the top row, or
    // alternately bottom and top (one meandering component). The columns
    // cross every strip border and the bar every warp border.
    ("comb-v-bottom", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| x % 2 == 0 || y + 1 == h)
    }),
    ("comb-v-top", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| x % 2 == 0 || y == 0)
    }),
    ("meander-v", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| {
            x % 2 == 0 || if x % 4 == 1 { y + 1 == h } else { y == 0 }
        })
    }),
    // The same with 1-pixel rows (y even) joined by a column on the left
    // (an "E"), on the right, or alternately.
    ("comb-h-left", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| y % 2 == 0 || x == 0)
    }),
    ("comb-h-right", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| y % 2 == 0 || x + 1 == w)
    }),
    ("meander-h", |w, h| {
        BinaryImageBuf::from_fn(w, h, |x, y| {
            y % 2 == 0 || if y % 4 == 1 { x + 1 == w } else { x == 0 }
        })
    }),
];

/// The names of every pattern kind, in a fixed order.
pub fn pattern_kinds() -> &'static [&'static str] {
    // Built once from KINDS so the two lists cannot drift apart.
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| KINDS.iter().map(|&(name, _)| name).collect())
}

/// The pattern `kind` drawn at `width × height`.
///
/// ```
/// let board = ccl_testdata::pattern("checkerboard", 4, 2)?;
/// assert_eq!(board.pixels(), &[1, 0, 1, 0, 0, 1, 0, 1]);
/// # Ok::<(), ccl_core::Error>(())
/// ```
///
/// # Errors
/// An error listing the known kinds when `kind` is not one of
/// [`pattern_kinds`]; [`Error::ImageTooLarge`] when the size exceeds the
/// 32-bit label space.
pub fn pattern(kind: &str, width: usize, height: usize) -> Result<BinaryImageBuf> {
    let (_, generate) = KINDS
        .iter()
        .find(|&&(name, _)| name == kind)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "unknown pattern `{kind}`; known patterns: {}",
                pattern_kinds().join(", ")
            ))
        })?;
    generate(width, height)
}

/// Every kind of [`pattern_kinds`] at every size of [`PATTERN_SIZES`], named
/// `kind-WxH` (about 1.1 M pixels in all).
pub fn patterns() -> Vec<Pattern> {
    KINDS
        .iter()
        .flat_map(|&(kind, generate)| {
            PATTERN_SIZES.iter().map(move |&(w, h)| Pattern {
                name: format!("{kind}-{w}x{h}"),
                image: generate(w, h).expect("PATTERN_SIZES are far below the 32-bit label limit"),
            })
        })
        .collect()
}

/// A clockwise rectangular spiral, 1 pixel wide with 1-pixel gaps, from the
/// top-left corner inward: one component whose path covers about half the
/// image (Kasagi et al.'s spiral test image).
fn spiral(w: usize, h: usize) -> Result<BinaryImageBuf> {
    let mut image = BinaryImageBuf::new(w, h)?;
    if w == 0 || h == 0 {
        return Ok(image);
    }
    // A turtle that walks forward while the next pixel keeps a gap to
    // everything drawn so far, and turns right once when it cannot; it stops
    // when it cannot move after turning either.
    const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
    let inside = |x: isize, y: isize| x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h;
    let (mut x, mut y, mut d) = (0isize, 0isize, 0usize);
    image.set(0, 0, true);
    let free = |image: &BinaryImageBuf, x: isize, y: isize, from: (isize, isize)| {
        inside(x, y)
            && !image.get(x as usize, y as usize)
            && DIRECTIONS.iter().all(|&(dx, dy)| {
                let (nx, ny) = (x + dx, y + dy);
                (nx, ny) == from || !inside(nx, ny) || !image.get(nx as usize, ny as usize)
            })
    };
    'walk: loop {
        for turn in 0..2 {
            let (dx, dy) = DIRECTIONS[(d + turn) % 4];
            if free(&image, x + dx, y + dy, (x, y)) {
                d = (d + turn) % 4;
                x += dx;
                y += dy;
                image.set(x as usize, y as usize, true);
                continue 'walk;
            }
        }
        return Ok(image);
    }
}

/// A Hilbert curve drawn at spacing 2: curve points on even coordinates,
/// consecutive points joined through the odd pixel between them, the curve
/// clipped to the image (Kasagi et al.'s other test image). Unclipped it is
/// one component with a path through every other pixel.
///
/// Only the curve's points inside the image are visited, each with its two
/// neighbours on the curve, so the work is linear in the image's pixels
/// however elongated it is (the curve's square may be far larger).
fn hilbert(w: usize, h: usize) -> Result<BinaryImageBuf> {
    let mut image = BinaryImageBuf::new(w, h)?;
    let cells = w.max(h).div_ceil(2).next_power_of_two();
    let points = cells as u128 * cells as u128;
    for cy in 0..h.div_ceil(2) {
        for cx in 0..w.div_ceil(2) {
            image.set(2 * cx, 2 * cy, true);
            let d = hilbert_index(cells, cx, cy) as u128;
            // Consecutive points are 2 apart on one axis: the pixel between
            // them is the sum of their cell coordinates. It is set from the
            // point below it on that axis, which is inside whenever it is.
            for next in [d.checked_sub(1), Some(d + 1).filter(|&n| n < points)]
                .into_iter()
                .flatten()
            {
                let (nx, ny) = hilbert_point(cells, next as usize);
                let (mx, my) = (cx + nx, cy + ny);
                if mx < w && my < h {
                    image.set(mx, my, true);
                }
            }
        }
    }
    Ok(image)
}

/// A perfect maze of 1-pixel corridors: cells on even coordinates, a
/// spanning tree of the cell grid grown by a randomised depth-first search
/// (MT19937, seed 0, so every run draws the same maze), each tree edge
/// opened through the odd pixel between its two cells. One 4-connected
/// component whose corridors are long: depth-first mazes have few branches
/// and a path between two cells often crosses most of the image, the worst
/// case for algorithms whose rounds grow with geodesic distance.
fn maze(w: usize, h: usize) -> Result<BinaryImageBuf> {
    let mut image = BinaryImageBuf::new(w, h)?;
    let (columns, rows) = (w.div_ceil(2), h.div_ceil(2));
    if columns == 0 || rows == 0 {
        return Ok(image);
    }
    let mut visited = vec![false; columns * rows];
    let mut rng = Mt::new(0);
    // The path from the start cell to the current one; the search backs up
    // along it when the current cell has no unvisited neighbour.
    let mut path = vec![(0usize, 0usize)];
    visited[0] = true;
    image.set(0, 0, true);
    while let Some(&(cx, cy)) = path.last() {
        let mut options = [(0usize, 0usize); 4];
        let mut count = 0;
        let neighbours = [
            (cx.wrapping_sub(1), cy),
            (cx + 1, cy),
            (cx, cy.wrapping_sub(1)),
            (cx, cy + 1),
        ];
        for (nx, ny) in neighbours {
            if nx < columns && ny < rows && !visited[ny * columns + nx] {
                options[count] = (nx, ny);
                count += 1;
            }
        }
        if count == 0 {
            path.pop();
            continue;
        }
        let (nx, ny) = options[rng.next_u32() as usize % count];
        visited[ny * columns + nx] = true;
        image.set(2 * nx, 2 * ny, true);
        // The corridor pixel between two cells 2 apart on one axis.
        image.set(cx + nx, cy + ny, true);
        path.push((nx, ny));
    }
    Ok(image)
}

/// The position of cell `(x, y)` along the Hilbert curve filling an `n × n`
/// grid (`n` a power of two): the classic xy2d, inverse of [`hilbert_point`].
fn hilbert_index(n: usize, mut x: usize, mut y: usize) -> usize {
    let mut d = 0;
    let mut s = n / 2;
    while s > 0 {
        let rx = usize::from(x & s != 0);
        let ry = usize::from(y & s != 0);
        d += s * s * ((3 * rx) ^ ry);
        if ry == 0 {
            if rx == 1 {
                x = n - 1 - x;
                y = n - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s /= 2;
    }
    d
}

/// The `d`-th point of the Hilbert curve filling an `n × n` grid (`n` a power
/// of two): the classic iterative d2xy.
fn hilbert_point(n: usize, d: usize) -> (usize, usize) {
    let (mut x, mut y, mut t) = (0, 0, d);
    let mut s = 1;
    while s < n {
        let rx = 1 & (t / 2);
        let ry = 1 & (t ^ rx);
        if ry == 0 {
            if rx == 1 {
                x = s - 1 - x;
                y = s - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        x += s * rx;
        y += s * ry;
        t /= 4;
        s *= 2;
    }
    (x, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::{Connectivity, Labeler};
    use ccl_cpu::UnionFind;

    #[test]
    fn hilbert_index_inverts_hilbert_point() {
        for n in [1, 2, 4, 16, 64] {
            for d in 0..n * n {
                let (x, y) = hilbert_point(n, d);
                assert_eq!(hilbert_index(n, x, y), d, "n={n}, d={d}");
            }
        }
    }

    #[test]
    fn hilbert_equals_the_whole_curve_walked_and_clipped() {
        for (w, h) in [
            (1, 1),
            (2, 9),
            (15, 11),
            (32, 32),
            (33, 17),
            (64, 3),
            (70, 70),
        ] {
            let mut walked = BinaryImageBuf::new(w, h).unwrap();
            let cells = w.max(h).div_ceil(2).next_power_of_two();
            let mut previous: Option<(usize, usize)> = None;
            for d in 0..cells * cells {
                let (cx, cy) = hilbert_point(cells, d);
                let mut set = |x: usize, y: usize| {
                    if x < w && y < h {
                        walked.set(x, y, true);
                    }
                };
                set(2 * cx, 2 * cy);
                if let Some((px, py)) = previous {
                    set(cx + px, cy + py);
                }
                previous = Some((cx, cy));
            }
            assert_eq!(hilbert(w, h).unwrap(), walked, "{w}x{h}");
        }
    }

    #[test]
    fn hilbert_of_a_very_elongated_image_takes_time_linear_in_its_pixels() {
        // The curve's square here has 2^38 points: walking it all (as this
        // pattern once did) never ends in practice.
        for (w, h) in [(1 << 20, 1), (1, 1 << 20)] {
            let count = hilbert(w, h).unwrap().view().foreground_count();
            // Every curve point (even pixel), and some of the pixels between.
            assert!((1 << 19..1 << 20).contains(&count), "{w}x{h}: {count}");
        }
    }

    fn components(image: &BinaryImageBuf, connectivity: Connectivity) -> usize {
        UnionFind
            .label(&image.view(), connectivity)
            .unwrap()
            .component_count()
    }

    fn render(image: &BinaryImageBuf) -> String {
        (0..image.height())
            .map(|y| {
                (0..image.width())
                    .map(|x| if image.get(x, y) { '#' } else { '.' })
                    .collect::<String>()
                    + "\n"
            })
            .collect()
    }

    #[test]
    fn every_kind_at_every_size_with_unique_names() {
        let all = patterns();
        assert_eq!(all.len(), pattern_kinds().len() * PATTERN_SIZES.len());
        let names: std::collections::HashSet<_> = all.iter().map(|p| &p.name).collect();
        assert_eq!(names.len(), all.len());
        let pixels: usize = all.iter().map(|p| p.image.pixels().len()).sum();
        assert!(pixels < 2_500_000, "{pixels} pixels");
        assert!(all.iter().any(|p| p.name == "checkerboard-33x31"));
        for p in &all {
            let (kind, size) = p.name.rsplit_once('-').unwrap();
            let (w, h) = size.split_once('x').unwrap();
            assert_eq!(p.image.width(), w.parse::<usize>().unwrap(), "{}", p.name);
            assert_eq!(p.image.height(), h.parse::<usize>().unwrap(), "{}", p.name);
            assert_eq!(
                p.image,
                pattern(kind, p.image.width(), p.image.height()).unwrap()
            );
        }
    }

    #[test]
    fn unknown_kind_lists_the_known_ones() {
        let err = pattern("zigzag", 4, 4).unwrap_err().to_string();
        assert!(
            err.contains("zigzag") && err.contains("checkerboard, stairs"),
            "{err}"
        );
        assert!(matches!(
            pattern("full", 1 << 16, 1 << 16),
            Err(Error::ImageTooLarge { .. })
        ));
    }

    #[test]
    fn component_counts_are_what_each_kind_promises() {
        use Connectivity::{Eight, Four};
        let (w, h) = (33, 31);
        let count = |kind, c| components(&pattern(kind, w, h).unwrap(), c);
        assert_eq!(count("empty", Four), 0);
        for kind in [
            "full",
            "spiral",
            "maze",
            "comb-v-bottom",
            "comb-v-top",
            "meander-v",
        ] {
            assert_eq!(count(kind, Four), 1, "{kind}");
        }
        for kind in ["comb-h-left", "comb-h-right", "meander-h"] {
            assert_eq!(count(kind, Four), 1, "{kind}");
        }
        // Whole where the image holds it (31 = 2 × 16 - 1); clipped elsewhere.
        assert_eq!(components(&pattern("hilbert", 31, 31).unwrap(), Four), 1);
        assert!(count("hilbert", Four) > 1);
        for kind in ["pixel-top-left", "pixel-bottom-right"] {
            assert_eq!(count(kind, Eight), 1, "{kind}");
        }
        assert_eq!(count("hline", Eight), 16);
        assert_eq!(count("vline", Eight), 17);
        assert_eq!(count("checkerboard", Four), (w * h).div_ceil(2));
        assert_eq!(count("checkerboard", Eight), 1);
        assert_eq!(count("diagonals", Eight), (w + h - 2) / 3 + 1);
        // One band per residue: anti-diagonal bands starting every 4 pixels.
        assert_eq!(count("stairs", Four), (w + h - 1).div_ceil(4));
        // Nested U / ∩: one component per ring, rings 2 apart.
        let rings = ((w - 1) / 2).min(h - 1) / 2 + 1;
        assert_eq!(count("nested-u", Four), rings);
        assert_eq!(count("nested-n", Four), rings);
    }

    #[test]
    fn meanders_and_spirals_are_single_paths() {
        // A single path of 1-pixel width: every pixel has at most two
        // 4-neighbours, and exactly two pixels (the ends) have one.
        // The Hilbert curve is a single path only where the image holds it
        // whole: a side of 2^k - 1 or 2^k pixels.
        let any_size = [(33, 33), (32, 32), (64, 64), (37, 53), (65, 3), (3, 65)];
        let square = [(7, 7), (31, 31), (32, 32), (64, 64), (127, 127)];
        for (kind, sizes) in [
            ("spiral", &any_size[..]),
            ("meander-v", &any_size),
            ("meander-h", &any_size),
            ("hilbert", &square),
        ] {
            for &(w, h) in sizes {
                let image = pattern(kind, w, h).unwrap();
                let mut ends = 0;
                for y in 0..h {
                    for x in 0..w {
                        if !image.get(x, y) {
                            continue;
                        }
                        let neighbours = [(1, 0), (0, 1), (-1, 0), (0, -1)]
                            .iter()
                            .filter(|&&(dx, dy)| {
                                let (nx, ny) = (x as isize + dx, y as isize + dy);
                                nx >= 0
                                    && ny >= 0
                                    && (nx as usize) < w
                                    && (ny as usize) < h
                                    && image.get(nx as usize, ny as usize)
                            })
                            .count();
                        assert!(neighbours <= 2, "{kind}-{w}x{h} at ({x}, {y})");
                        ends += usize::from(neighbours == 1);
                    }
                }
                assert_eq!(ends, 2, "{kind}-{w}x{h}:\n{}", render(&image));
                assert_eq!(components(&image, Connectivity::Four), 1, "{kind}-{w}x{h}");
            }
        }
    }

    #[test]
    fn mazes_are_spanning_trees_of_their_cells() {
        // Every cell is reached (one component) through exactly cells - 1
        // corridors: a tree, so the path between two cells is unique.
        for (w, h) in [
            (1, 1),
            (2, 2),
            (33, 31),
            (64, 64),
            (65, 3),
            (200, 1),
            (255, 255),
        ] {
            let image = pattern("maze", w, h).unwrap();
            let cells = w.div_ceil(2) * h.div_ceil(2);
            let pixels = image.pixels().iter().filter(|&&p| p != 0).count();
            assert_eq!(pixels, 2 * cells - 1, "maze-{w}x{h}");
            assert_eq!(components(&image, Connectivity::Four), 1, "maze-{w}x{h}");
            assert!(
                (0..h)
                    .step_by(2)
                    .all(|y| (0..w).step_by(2).all(|x| image.get(x, y)))
            );
        }
        assert_eq!(
            pattern("maze", 31, 17).unwrap(),
            pattern("maze", 31, 17).unwrap()
        );
    }

    #[test]
    fn small_drawings() {
        assert_eq!(
            render(&pattern("spiral", 7, 7).unwrap()),
            "#######\n......#\n#####.#\n#...#.#\n#.###.#\n#.....#\n#######\n"
        );
        assert_eq!(
            render(&pattern("hilbert", 7, 7).unwrap()),
            "###.###\n..#.#..\n###.###\n#.....#\n#.###.#\n#.#.#.#\n###.###\n"
        );
        assert_eq!(
            render(&pattern("nested-u", 7, 4).unwrap()),
            "#.#.#.#\n#.###.#\n#.....#\n#######\n"
        );
        assert_eq!(
            render(&pattern("meander-v", 7, 3).unwrap()),
            "#.###.#\n#.#.#.#\n###.###\n"
        );
        assert_eq!(
            render(&pattern("stairs", 6, 3).unwrap()),
            "##..##\n#..##.\n..##..\n"
        );
    }
}
