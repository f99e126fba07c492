//! Structured volumes: the shapes that break 3-D CCL algorithms.
//!
//! The worst cases of an iterative labeler are components whose geodesic
//! path is long: labels cross one voxel per round (or per pointer jump), so
//! a thin winding component costs rounds in proportion to its length, not
//! to the volume's size. `helix` (a multi-layer coil), `hilbert3d` (a 3-D
//! Hilbert curve) and `maze3d` (a perfect maze) are one
//! such component each, drawn on a lattice of cells at even coordinates so
//! that the path never touches itself, in any connectivity, except around
//! its own turns. `checker3d` has the most components a 6-connected volume
//! can have and one component in 18/26, `slabs` spans whole slices (every
//! merge within slices, none across), and `empty` / `full` are the
//! trivial extremes. Every kind is drawn at every size of
//! [`VOLUME_PATTERN_SIZES`].

use ccl_core::{BinaryVolumeBuf, Error, Result};
use rand_mt::Mt;

/// One structured test volume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumePattern {
    /// `kind-WxHxD`, e.g. `helix-33x33x33`.
    pub name: String,
    /// The voxels, foreground stored as 1.
    pub volume: BinaryVolumeBuf,
}

/// The sizes `(width, height, depth)` at which [`volume_patterns`] draws
/// every kind: empty (a zero side), 1-voxel thin lines along each axis,
/// cubes whose cell lattice is or is not a power of two (the Hilbert curve
/// whole or clipped), the 32-voxel warp border, and flat or elongated boxes.
pub const VOLUME_PATTERN_SIZES: &[(usize, usize, usize)] = &[
    (0, 0, 0),
    (0, 4, 4),
    (4, 0, 4),
    (4, 4, 0),
    (1, 1, 1),
    (1, 1, 9),
    (1, 9, 1),
    (9, 1, 1),
    (2, 2, 2),
    (3, 3, 3),
    (7, 7, 7),
    (8, 8, 8),
    (9, 9, 9),
    (16, 16, 16),
    (17, 17, 17),
    (31, 7, 5),
    (32, 32, 32),
    (33, 33, 33),
    (65, 3, 2),
    (2, 3, 65),
    (1, 1, 200),
    (5, 6, 7),
];

type Generator = fn(usize, usize, usize) -> Result<BinaryVolumeBuf>;

/// Every kind and its generator. Kinds that are a formula of the voxel use
/// `from_fn`; the paths are drawn on the cell lattice.
const KINDS: &[(&str, Generator)] = &[
    ("empty", |w, h, d| BinaryVolumeBuf::new(w, h, d)),
    ("full", |w, h, d| {
        BinaryVolumeBuf::from_fn(w, h, d, |_, _, _| true)
    }),
    // 6-connectivity: every voxel its own component (the most a volume can
    // have); 18 and 26: one component wherever two sides exceed 1, since
    // voxels sharing an edge have the same parity.
    ("checker3d", |w, h, d| {
        BinaryVolumeBuf::from_fn(w, h, d, |x, y, z| (x + y + z) % 2 == 0)
    }),
    // Every other slice full: one component per slice in every
    // connectivity, each merged across the whole slice and never across
    // slices (the opposite of what slice-parallel algorithms split).
    ("slabs", |w, h, d| {
        BinaryVolumeBuf::from_fn(w, h, d, |_, _, z| z % 2 == 0)
    }),
    ("helix", helix),
    ("hilbert3d", hilbert3d),
    ("maze3d", maze3d),
];

/// The names of every volume pattern kind, in a fixed order.
pub fn volume_pattern_kinds() -> &'static [&'static str] {
    // Built once from KINDS so the two lists cannot drift apart.
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| KINDS.iter().map(|&(name, _)| name).collect())
}

/// One volume pattern of any size.
///
/// - `empty`, `full`: the trivial extremes.
/// - `checker3d`: voxels with `x + y + z` even: ⌈w·h·d / 2⌉ isolated voxels
///   in 6-connectivity, one component in 18 and 26 (where two sides exceed 1).
/// - `slabs`: slices with `z` even: ⌈d / 2⌉ planes in every connectivity.
/// - `helix`: a multi-layer coil, one thin component through nearly every
///   cell of the lattice (below); a path of about a quarter of the voxels.
/// - `hilbert3d`: a 3-D Hilbert curve through every cell, clipped to the
///   volume; one component where the cell lattice is a power-of-two cube.
/// - `maze3d`: a perfect maze, a spanning tree of the cells with many dead
///   ends; one component.
///
/// The last three are drawn on a lattice of cells: cell `(cx, cy, cz)` is
/// voxel `(2cx, 2cy, 2cz)`, consecutive cells of a path are joined through
/// the voxel between them, and the voxels of odd coordinates elsewhere stay
/// background. Two drawn voxels then touch, even in 26-connectivity, only
/// where they are consecutive on the path or the two links of one cell, so
/// a path of `n` cells is `2n − 1` voxels whose ends are at least `n − 1`
/// steps apart in every connectivity: labels must travel its whole length.
///
/// The coil (`helix`) winds around the outer ring of cells of each cell
/// level, one turn per level from the bottom level to the top (each turn
/// the whole ring but the link that would close it, the next turn starting
/// above the previous turn's last cell), steps inward to the next ring on
/// the top level, winds down that ring, and so on inward; a ring one cell
/// wide is walked back and forth instead. A 1×1×N volume is a straight line.
///
/// ```
/// let helix = ccl_testdata::volume_pattern("helix", 9, 9, 9)?;
/// // 5x5x5 cells, every one on the path: 125 cells and the 124 links between.
/// assert_eq!(helix.view().foreground_count(), 2 * 125 - 1);
/// // The 2-D slice z = 1 holds only the links of the turns' climbs.
/// let climbs = (0..9).flat_map(|y| (0..9).map(move |x| (x, y)));
/// assert_eq!(climbs.filter(|&(x, y)| helix.get(x, y, 1)).count(), 3);
/// # Ok::<(), ccl_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] listing the known kinds when `kind` is not
/// one of [`volume_pattern_kinds`]; [`Error::VolumeTooLarge`] when the size
/// exceeds the 32-bit label space.
pub fn volume_pattern(
    kind: &str,
    width: usize,
    height: usize,
    depth: usize,
) -> Result<BinaryVolumeBuf> {
    let (_, generate) = KINDS
        .iter()
        .find(|&&(name, _)| name == kind)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "unknown volume pattern `{kind}`; known volume patterns: {}",
                volume_pattern_kinds().join(", ")
            ))
        })?;
    generate(width, height, depth)
}

/// Every kind of [`volume_pattern_kinds`] at every size of
/// [`VOLUME_PATTERN_SIZES`], named `kind-WxHxD` (about 0.6 M voxels in all).
pub fn volume_patterns() -> Vec<VolumePattern> {
    KINDS
        .iter()
        .flat_map(|&(kind, generate)| {
            VOLUME_PATTERN_SIZES
                .iter()
                .map(move |&(w, h, d)| VolumePattern {
                    name: format!("{kind}-{w}x{h}x{d}"),
                    volume: generate(w, h, d)
                        .expect("VOLUME_PATTERN_SIZES are far below the 32-bit label limit"),
                })
        })
        .collect()
}

/// The cell lattice of a `w × h × d` volume: cells on even coordinates, so
/// `⌈w/2⌉ × ⌈h/2⌉ × ⌈d/2⌉` of them, every one inside the volume.
fn cell_lattice(w: usize, h: usize, d: usize) -> [usize; 3] {
    [w.div_ceil(2), h.div_ceil(2), d.div_ceil(2)]
}

/// Draws a path of cells into a volume: each cell's voxel, and the voxel
/// between it and the previous cell.
struct PathPen<'a> {
    volume: &'a mut BinaryVolumeBuf,
    last: Option<[usize; 3]>,
}

impl PathPen<'_> {
    fn to(&mut self, [x, y, z]: [usize; 3]) {
        self.volume.set(2 * x, 2 * y, 2 * z, true);
        if let Some([lx, ly, lz]) = self.last {
            debug_assert_eq!(
                lx.abs_diff(x) + ly.abs_diff(y) + lz.abs_diff(z),
                1,
                "consecutive path cells must share a face"
            );
            // Two cells 2 apart on one axis: the voxel between them is the
            // sum of their cell coordinates.
            self.volume.set(lx + x, ly + y, lz + z, true);
        }
        self.last = Some([x, y, z]);
    }
}

/// Ring `r` of a `cw × ch` grid of cells: the border of the rectangle
/// `[r, cw−1−r] × [r, ch−1−r]`, walked clockwise from its top-left cell.
struct Ring {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

impl Ring {
    /// Ring `r`, if the rectangle is not empty.
    fn new(r: usize, cw: usize, ch: usize) -> Option<Ring> {
        (2 * r < cw && 2 * r < ch).then(|| Ring {
            x0: r,
            y0: r,
            x1: cw - 1 - r,
            y1: ch - 1 - r,
        })
    }

    fn width(&self) -> usize {
        self.x1 - self.x0 + 1
    }

    fn height(&self) -> usize {
        self.y1 - self.y0 + 1
    }

    /// Whether the border is a cycle (both sides at least 2) rather than a
    /// line of cells.
    fn is_cycle(&self) -> bool {
        self.width() >= 2 && self.height() >= 2
    }

    /// The number of cells on the border.
    fn len(&self) -> usize {
        if self.is_cycle() {
            2 * (self.width() - 1) + 2 * (self.height() - 1)
        } else {
            self.width() * self.height()
        }
    }

    /// Whether a ring lies inside this one: then every cell of this ring
    /// but its corners has a neighbour on the inner ring.
    fn has_inner(&self) -> bool {
        self.width() >= 3 && self.height() >= 3
    }

    /// The cell at position `p` (in `0..len`): clockwise along the top,
    /// right, bottom and left sides of a cycle; along a line otherwise.
    fn cell(&self, p: usize) -> (usize, usize) {
        let (a, b) = (self.width() - 1, self.height() - 1);
        if !self.is_cycle() {
            return if a == 0 {
                (self.x0, self.y0 + p)
            } else {
                (self.x0 + p, self.y0)
            };
        }
        if p < a {
            (self.x0 + p, self.y0)
        } else if p < a + b {
            (self.x1, self.y0 + (p - a))
        } else if p < 2 * a + b {
            (self.x1 - (p - a - b), self.y1)
        } else {
            (self.x0, self.y1 - (p - 2 * a - b))
        }
    }

    /// The position of border cell `(x, y)`, inverse of [`Ring::cell`].
    fn position(&self, (x, y): (usize, usize)) -> usize {
        let (a, b) = (self.width() - 1, self.height() - 1);
        if !self.is_cycle() {
            return (x - self.x0) + (y - self.y0);
        }
        if y == self.y0 && x < self.x1 {
            x - self.x0
        } else if x == self.x1 && y < self.y1 {
            a + (y - self.y0)
        } else if y == self.y1 && x > self.x0 {
            a + b + (self.x1 - x)
        } else {
            2 * a + b + (self.y1 - y)
        }
    }

    fn is_corner(&self, (x, y): (usize, usize)) -> bool {
        (x == self.x0 || x == self.x1) && (y == self.y0 || y == self.y1)
    }

    /// The neighbour of non-corner border cell `(x, y)` on the inner ring.
    fn inward(&self, (x, y): (usize, usize)) -> (usize, usize) {
        if y == self.y0 {
            (x, y + 1)
        } else if x == self.x1 {
            (x - 1, y)
        } else if y == self.y1 {
            (x, y - 1)
        } else {
            (x + 1, y)
        }
    }
}

/// A multi-layer coil (see [`volume_pattern`]): one path of cells through
/// nearly the whole lattice, winding round and round, so that the two ends
/// of the one component are about `w·h·d / 8` steps apart.
///
/// Each layer is the helix of one ring: at each cell level it walks the
/// whole ring from where the previous level ended, leaving out only the
/// link that would close the turn (the turn's last cell is beside its first
/// one, unlinked), and climbs to the next level there. Its top turn ends on
/// a non-corner cell (one corner cell is skipped where needed) so that the
/// next layer starts beside it on the inner ring and winds the other way
/// along z. Layers of one-cell-wide rings meander instead.
fn helix(w: usize, h: usize, d: usize) -> Result<BinaryVolumeBuf> {
    let mut volume = BinaryVolumeBuf::new(w, h, d)?;
    let [cw, ch, cd] = cell_lattice(w, h, d);
    if cw == 0 || ch == 0 || cd == 0 {
        return Ok(volume);
    }
    let mut pen = PathPen {
        volume: &mut volume,
        last: None,
    };
    let mut start = (0, 0);
    let mut r = 0;
    while let Some(ring) = Ring::new(r, cw, ch) {
        // Layers alternate up and down, so each starts where the last ended.
        let level = |k: usize| if r % 2 == 0 { k } else { cd - 1 - k };
        let len = ring.len();
        let mut p = ring.position(start);
        if !ring.is_cycle() {
            // A line of cells: from the start to its farther end, then back
            // and forth along the whole line, one level each.
            let (mut from, mut to) = if p >= len - 1 - p {
                (p, 0)
            } else {
                (p, len - 1)
            };
            for k in 0..cd {
                let step = |i: usize| if from <= to { from + i } else { from - i };
                for i in 0..=from.abs_diff(to) {
                    let (x, y) = ring.cell(step(i));
                    pen.to([x, y, level(k)]);
                }
                (from, to) = (to, if to == 0 { len - 1 } else { 0 });
            }
            break;
        }
        for k in 0..cd {
            let mut count = len;
            let top = k + 1 == cd;
            if top && ring.has_inner() && ring.is_corner(ring.cell((p + len - 1) % len)) {
                // No corner has an inner neighbour: end one cell earlier.
                count = len - 1;
            }
            for i in 0..count {
                let (x, y) = ring.cell((p + i) % len);
                pen.to([x, y, level(k)]);
            }
            p = (p + count - 1) % len;
        }
        if !ring.has_inner() {
            break;
        }
        start = ring.inward(ring.cell(p));
        r += 1;
    }
    Ok(volume)
}

/// A 3-D Hilbert curve drawn at spacing 2 (cells on even coordinates,
/// consecutive cells joined through the voxel between them) over the
/// smallest power-of-two cube of cells that holds the volume's lattice,
/// clipped to the volume. Unclipped it is one component through every
/// cell, the 3-D counterpart of Kasagi et al.'s Hilbert image: a path of
/// a quarter of the voxels that folds back on itself at every scale, so
/// that voxels close in space are often far apart along it.
///
/// Only the curve's cells inside the volume are visited, each with its two
/// neighbours on the curve, so the work is linear in the volume's voxels
/// however elongated it is (the curve's cube may be far larger).
fn hilbert3d(w: usize, h: usize, d: usize) -> Result<BinaryVolumeBuf> {
    let mut volume = BinaryVolumeBuf::new(w, h, d)?;
    let [cw, ch, cd] = cell_lattice(w, h, d);
    // A lattice of one cell is the curve of 0 bits: one point, no link.
    let bits = cw.max(ch).max(cd).next_power_of_two().trailing_zeros();
    let points = 1u128 << (3 * bits);
    for cz in 0..cd {
        for cy in 0..ch {
            for cx in 0..cw {
                volume.set(2 * cx, 2 * cy, 2 * cz, true);
                let i = hilbert3d_index(bits, [cx, cy, cz]);
                for next in [i.checked_sub(1), Some(i + 1).filter(|&n| n < points)]
                    .into_iter()
                    .flatten()
                {
                    let [nx, ny, nz] = hilbert3d_point(bits, next);
                    // The link may lie inside the volume even where the next
                    // cell does not (an even side): clipped like the rest.
                    let (mx, my, mz) = (cx + nx, cy + ny, cz + nz);
                    if mx < w && my < h && mz < d {
                        volume.set(mx, my, mz, true);
                    }
                }
            }
        }
    }
    Ok(volume)
}

/// The position of cell `[x, y, z]` along the 3-D Hilbert curve filling a
/// cube of side `2^bits`: Skilling's AxestoTranspose ("Programming the
/// Hilbert curve", 2004), the transposed index then read bit-interleaved,
/// x's bit first at each level. Inverse of [`hilbert3d_point`].
fn hilbert3d_index(bits: u32, axes: [usize; 3]) -> u128 {
    if bits == 0 {
        return 0;
    }
    let mut x = axes.map(|a| a as u64);
    let m = 1u64 << (bits - 1);
    // Inverse undo.
    let mut q = m;
    while q > 1 {
        let p = q - 1;
        for i in 0..3 {
            if x[i] & q != 0 {
                x[0] ^= p;
            } else {
                let t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
        q >>= 1;
    }
    // Gray encode.
    for i in 1..3 {
        x[i] ^= x[i - 1];
    }
    let mut t = 0;
    let mut q = m;
    while q > 1 {
        if x[2] & q != 0 {
            t ^= q - 1;
        }
        q >>= 1;
    }
    for xi in &mut x {
        *xi ^= t;
    }
    let mut index = 0u128;
    for bit in (0..bits).rev() {
        for xi in x {
            index = index << 1 | u128::from(xi >> bit & 1);
        }
    }
    index
}

/// The `index`-th cell of the 3-D Hilbert curve filling a cube of side
/// `2^bits`: Skilling's TransposetoAxes, inverse of [`hilbert3d_index`].
fn hilbert3d_point(bits: u32, index: u128) -> [usize; 3] {
    if bits == 0 {
        return [0; 3];
    }
    let mut x = [0u64; 3];
    for bit in 0..bits {
        for (i, xi) in x.iter_mut().enumerate() {
            let shift = 3 * bit + (2 - i as u32);
            *xi |= ((index >> shift) as u64 & 1) << bit;
        }
    }
    // Gray decode by H ^ (H / 2).
    let t = x[2] >> 1;
    for i in (1..3).rev() {
        x[i] ^= x[i - 1];
    }
    x[0] ^= t;
    // Undo excess work.
    let n = 2u64 << (bits - 1);
    let mut q = 2;
    while q != n {
        let p = q - 1;
        for i in (0..3).rev() {
            if x[i] & q != 0 {
                x[0] ^= p;
            } else {
                let t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
        q <<= 1;
    }
    x.map(|a| a as usize)
}

/// A perfect maze of 1-voxel corridors: a spanning tree of the cell lattice
/// grown by a randomised depth-first search (MT19937, seed 0, so every run
/// draws the same maze), each tree edge opened through the voxel between
/// its two cells; the 2-D `maze` with six directions. One 6-connected
/// component whose corridors are long and whose branches end in many dead
/// ends: the path between two cells is unique and often crosses most of the
/// volume, and every dead end is a leaf that labels must reach and leave
/// by the same corridor.
fn maze3d(w: usize, h: usize, d: usize) -> Result<BinaryVolumeBuf> {
    let mut volume = BinaryVolumeBuf::new(w, h, d)?;
    let [cw, ch, cd] = cell_lattice(w, h, d);
    if cw == 0 || ch == 0 || cd == 0 {
        return Ok(volume);
    }
    let mut rng = Mt::new(0);
    // Cells by raster index, 4 bytes each on a stack that can grow to
    // nearly every cell: a cell is a distinct voxel, and the volume has
    // fewer than 2^32 voxels (checked above), so the index fits.
    let index = |[x, y, z]: [usize; 3]| ((z * ch + y) * cw + x) as u32;
    let cell = |i: u32| {
        let i = i as usize;
        [i % cw, i / cw % ch, i / (cw * ch)]
    };
    // A cell is visited once its voxel is set. The path from the start cell
    // to the current one; the search backs up along it when the current
    // cell has no unvisited neighbour.
    let mut path = vec![0u32];
    volume.set(0, 0, 0, true);
    while let Some(&current) = path.last() {
        let [cx, cy, cz] = cell(current);
        let mut options = [[0usize; 3]; 6];
        let mut count = 0;
        let neighbours = [
            [cx.wrapping_sub(1), cy, cz],
            [cx + 1, cy, cz],
            [cx, cy.wrapping_sub(1), cz],
            [cx, cy + 1, cz],
            [cx, cy, cz.wrapping_sub(1)],
            [cx, cy, cz + 1],
        ];
        for [nx, ny, nz] in neighbours {
            if nx < cw && ny < ch && nz < cd && !volume.get(2 * nx, 2 * ny, 2 * nz) {
                options[count] = [nx, ny, nz];
                count += 1;
            }
        }
        if count == 0 {
            path.pop();
            continue;
        }
        let next = options[rng.next_u32() as usize % count];
        let [nx, ny, nz] = next;
        volume.set(2 * nx, 2 * ny, 2 * nz, true);
        // The corridor voxel between two cells 2 apart on one axis.
        volume.set(cx + nx, cy + ny, cz + nz, true);
        path.push(index(next));
    }
    Ok(volume)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::Connectivity;
    use std::collections::VecDeque;

    /// The neighbour offsets of a connectivity, written out here rather
    /// than taken from any labeler of the workspace: 6 share a face (one
    /// nonzero coordinate), 18 a face or an edge, 26 anything.
    fn offsets(connectivity: Connectivity) -> Vec<[isize; 3]> {
        let most = match connectivity {
            Connectivity::Six => 1,
            Connectivity::Eighteen => 2,
            Connectivity::TwentySix => 3,
            other => panic!("{other} is not a volume connectivity"),
        };
        let mut out = Vec::new();
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1isize..=1 {
                    let nonzero = [dx, dy, dz].iter().filter(|&&c| c != 0).count();
                    if (1..=most).contains(&nonzero) {
                        out.push([dx, dy, dz]);
                    }
                }
            }
        }
        out
    }

    /// Breadth-first distances (in steps of `connectivity`) from `from` to
    /// every foreground voxel; `usize::MAX` where unreached.
    fn distances(
        volume: &BinaryVolumeBuf,
        connectivity: Connectivity,
        from: [usize; 3],
    ) -> Vec<usize> {
        let (w, h, d) = (volume.width(), volume.height(), volume.depth());
        let index = |[x, y, z]: [usize; 3]| (z * h + y) * w + x;
        let offsets = offsets(connectivity);
        let mut distance = vec![usize::MAX; w * h * d];
        let mut queue = VecDeque::from([from]);
        distance[index(from)] = 0;
        while let Some(voxel) = queue.pop_front() {
            let next = distance[index(voxel)] + 1;
            for o in &offsets {
                let n = [0, 1, 2].map(|a| voxel[a].wrapping_add_signed(o[a]));
                if n[0] < w && n[1] < h && n[2] < d && volume.get(n[0], n[1], n[2]) {
                    let i = index(n);
                    if distance[i] == usize::MAX {
                        distance[i] = next;
                        queue.push_back(n);
                    }
                }
            }
        }
        distance
    }

    /// The number of components, by flood fill from every unreached voxel.
    fn components(volume: &BinaryVolumeBuf, connectivity: Connectivity) -> usize {
        let (w, h, d) = (volume.width(), volume.height(), volume.depth());
        let mut reached = vec![false; w * h * d];
        let mut count = 0;
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let i = (z * h + y) * w + x;
                    if volume.get(x, y, z) && !reached[i] {
                        count += 1;
                        let fill = distances(volume, connectivity, [x, y, z]);
                        for (r, &f) in reached.iter_mut().zip(&fill) {
                            *r |= f != usize::MAX;
                        }
                    }
                }
            }
        }
        count
    }

    /// The foreground voxels with how many 6-neighbours each has.
    fn face_degrees(volume: &BinaryVolumeBuf) -> Vec<([usize; 3], usize)> {
        let (w, h, d) = (volume.width(), volume.height(), volume.depth());
        let offsets = offsets(Connectivity::Six);
        let mut out = Vec::new();
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    if !volume.get(x, y, z) {
                        continue;
                    }
                    let degree = offsets
                        .iter()
                        .filter(|o| {
                            let n = [x, y, z];
                            let n = [0, 1, 2].map(|a| n[a].wrapping_add_signed(o[a]));
                            n[0] < w && n[1] < h && n[2] < d && volume.get(n[0], n[1], n[2])
                        })
                        .count();
                    out.push(([x, y, z], degree));
                }
            }
        }
        out
    }

    /// Asserts that the foreground is one simple 6-connected path starting
    /// at the origin whose far end is at least `(voxels − 1) / 2` steps away
    /// in 26-connectivity (no shortcut skips more than the cell of a turn),
    /// and returns its length in voxels.
    fn assert_long_single_path(volume: &BinaryVolumeBuf, name: &str) -> usize {
        let degrees = face_degrees(volume);
        let voxels = degrees.len();
        assert!(voxels > 0, "{name}: empty");
        assert!(degrees.iter().all(|&(_, n)| n <= 2), "{name}: a branch");
        let ends: Vec<_> = degrees.iter().filter(|&&(_, n)| n < 2).collect();
        if voxels == 1 {
            return 1;
        }
        assert_eq!(ends.len(), 2, "{name}: ends {ends:?}");
        assert_eq!(ends[0].0, [0, 0, 0], "{name}: starts at the origin");
        for c in [Connectivity::Six, Connectivity::TwentySix] {
            assert_eq!(components(volume, c), 1, "{name} at {c}");
        }
        let [x, y, z] = ends[1].0;
        let far = distances(volume, Connectivity::TwentySix, [0, 0, 0])
            [(z * volume.height() + y) * volume.width() + x];
        assert_eq!(
            distances(volume, Connectivity::Six, [0, 0, 0])
                [(z * volume.height() + y) * volume.width() + x],
            voxels - 1,
            "{name}"
        );
        assert!(far >= (voxels - 1) / 2, "{name}: ends {far} apart");
        voxels
    }

    #[test]
    fn hilbert3d_index_inverts_hilbert3d_point_and_steps_by_one_face() {
        for bits in 0..=4 {
            let n = 1u128 << (3 * bits);
            assert_eq!(hilbert3d_point(bits, 0), [0, 0, 0]);
            let mut previous: Option<[usize; 3]> = None;
            for i in 0..n {
                let p = hilbert3d_point(bits, i);
                assert!(p.iter().all(|&c| c < 1 << bits), "bits={bits}, {i}: {p:?}");
                assert_eq!(hilbert3d_index(bits, p), i, "bits={bits}, {p:?}");
                if let Some(q) = previous {
                    let step: usize = (0..3).map(|a| p[a].abs_diff(q[a])).sum();
                    assert_eq!(step, 1, "bits={bits}, {i}: {q:?} -> {p:?}");
                }
                previous = Some(p);
            }
        }
    }

    #[test]
    fn hilbert3d_equals_the_whole_curve_walked_and_clipped() {
        for (w, h, d) in [
            (1, 1, 1),
            (2, 2, 2),
            (2, 2, 9),
            (5, 3, 7),
            (8, 8, 8),
            (9, 4, 6),
            (16, 3, 1),
            (17, 17, 17),
        ] {
            let mut walked = BinaryVolumeBuf::new(w, h, d).unwrap();
            let [cw, ch, cd] = cell_lattice(w, h, d);
            let bits = cw.max(ch).max(cd).next_power_of_two().trailing_zeros();
            let mut previous: Option<[usize; 3]> = None;
            for i in 0..1u128 << (3 * bits) {
                let [cx, cy, cz] = hilbert3d_point(bits, i);
                let mut set = |x: usize, y: usize, z: usize| {
                    if x < w && y < h && z < d {
                        walked.set(x, y, z, true);
                    }
                };
                set(2 * cx, 2 * cy, 2 * cz);
                if let Some([px, py, pz]) = previous {
                    set(cx + px, cy + py, cz + pz);
                }
                previous = Some([cx, cy, cz]);
            }
            assert_eq!(hilbert3d(w, h, d).unwrap(), walked, "{w}x{h}x{d}");
        }
    }

    #[test]
    fn hilbert3d_is_one_path_through_every_cell_where_the_volume_holds_it() {
        // A side of 2^k − 1 or 2^k voxels holds 2^(k−1) cells: the whole cube.
        for side in [1, 2, 3, 4, 7, 8, 15, 16, 31, 32] {
            let volume = hilbert3d(side, side, side).unwrap();
            let cells = side.div_ceil(2).pow(3);
            let voxels = assert_long_single_path(&volume, &format!("hilbert3d-{side}"));
            assert_eq!(voxels, 2 * cells - 1, "hilbert3d-{side}");
        }
        // Clipped elsewhere: pieces of the curve.
        assert!(components(&hilbert3d(33, 17, 9).unwrap(), Connectivity::Six) > 1);
    }

    #[test]
    fn hilbert3d_of_a_very_elongated_volume_takes_time_linear_in_its_voxels() {
        // The curve's cube here has 2^57 cells: walking it all never ends.
        for (w, h, d) in [(1 << 20, 1, 1), (1, 1 << 20, 1), (1, 1, 1 << 20)] {
            let count = hilbert3d(w, h, d).unwrap().view().foreground_count();
            // Every cell (even voxel), and some of the links between.
            assert!((1 << 19..1 << 20).contains(&count), "{w}x{h}x{d}: {count}");
        }
    }

    #[test]
    fn helix_is_one_long_path_through_nearly_every_cell() {
        for (w, h, d) in [
            (1, 1, 1),
            (1, 1, 9),
            (1, 1, 10),
            (9, 1, 1),
            (1, 9, 3),
            (2, 2, 2),
            (3, 3, 3),
            (5, 5, 1),
            (5, 3, 5),
            (9, 9, 9),
            (16, 16, 16),
            (17, 9, 5),
            (7, 21, 4),
            (33, 33, 33),
            (65, 3, 2),
            (2, 3, 65),
            (12, 11, 13),
        ] {
            let name = format!("helix-{w}x{h}x{d}");
            let volume = helix(w, h, d).unwrap();
            let voxels = assert_long_single_path(&volume, &name);
            let [cw, ch, cd] = cell_lattice(w, h, d);
            let cells = cw * ch * cd;
            let path_cells = voxels.div_ceil(2);
            // Skipped: at most one corner per ring, and part of the top level
            // of a last ring one cell wide.
            let rings = cw.min(ch).div_ceil(2);
            let line = cw.max(ch) - cw.min(ch) + 1;
            assert!(
                path_cells + rings + line >= cells,
                "{name}: {path_cells} of {cells}"
            );
            // The cells of the path are every other voxel of it.
            let set_cells = (0..cd)
                .flat_map(|z| (0..ch).flat_map(move |y| (0..cw).map(move |x| [x, y, z])))
                .filter(|&[x, y, z]| volume.get(2 * x, 2 * y, 2 * z))
                .count();
            assert_eq!(set_cells, path_cells, "{name}");
        }
    }

    #[test]
    fn helix_winds_one_turn_per_level() {
        // 5x5x5 voxels: 3x3x3 cells, the outer ring of 8 cells and the
        // centre. Level 0 walks the ring clockwise from the corner and
        // climbs at its last cell (voxel x 0, y 2), which level 1 starts
        // from; each turn leaves out the link that would close it. The top
        // turn steps inward to the centre, a line of cells going down.
        let volume = helix(5, 5, 5).unwrap();
        let slice = |z: usize| -> String {
            (0..5)
                .map(|y| {
                    (0..5)
                        .map(|x| if volume.get(x, y, z) { '#' } else { '.' })
                        .collect::<String>()
                        + "\n"
                })
                .collect()
        };
        assert_eq!(slice(0), "#####\n....#\n#.#.#\n#...#\n#####\n");
        assert_eq!(slice(1), ".....\n.....\n#.#..\n.....\n.....\n");
        assert_eq!(slice(2), "#####\n#...#\n#.#.#\n....#\n#####\n");
        assert_eq!(slice(3), ".....\n.....\n..#..\n.....\n#....\n");
        assert_eq!(slice(4), "#####\n#...#\n#.#.#\n#.#.#\n#.###\n");
    }

    #[test]
    fn maze3d_is_a_spanning_tree_of_its_cells_with_dead_ends() {
        for (w, h, d) in [
            (1, 1, 1),
            (2, 2, 2),
            (1, 1, 9),
            (9, 1, 1),
            (7, 7, 7),
            (17, 9, 5),
            (33, 33, 33),
        ] {
            let name = format!("maze3d-{w}x{h}x{d}");
            let volume = maze3d(w, h, d).unwrap();
            let [cw, ch, cd] = cell_lattice(w, h, d);
            let cells = cw * ch * cd;
            // Every cell reached (one component) through cells − 1 corridors:
            // a tree, so the path between two cells is unique.
            assert_eq!(volume.view().foreground_count(), 2 * cells - 1, "{name}");
            assert_eq!(components(&volume, Connectivity::Six), 1, "{name}");
            for z in (0..d).step_by(2) {
                for y in (0..h).step_by(2) {
                    assert!((0..w).step_by(2).all(|x| volume.get(x, y, z)), "{name}");
                }
            }
        }
        // Many dead ends: leaves of the tree, cells with one corridor.
        let volume = maze3d(33, 33, 33).unwrap();
        let leaves = face_degrees(&volume)
            .iter()
            .filter(|&&(_, n)| n == 1)
            .count();
        assert!(leaves > 17usize.pow(3) / 20, "{leaves} dead ends");
        assert_eq!(volume, maze3d(33, 33, 33).unwrap());
    }

    #[test]
    fn simple_kinds_have_the_component_counts_they_promise() {
        use Connectivity::{Eighteen, Six, TwentySix};
        let count = |kind, (w, h, d), c| components(&volume_pattern(kind, w, h, d).unwrap(), c);
        for size in [
            (9, 8, 7),
            (4, 4, 4),
            (5, 2, 1),
            (1, 1, 9),
            (1, 7, 1),
            (0, 3, 3),
        ] {
            let (w, h, d) = size;
            let n = w * h * d;
            let nonempty = usize::from(n > 0);
            for c in Connectivity::VOLUME {
                assert_eq!(count("empty", size, c), 0);
                assert_eq!(count("full", size, c), nonempty, "full {size:?} {c}");
                assert_eq!(
                    count("slabs", size, c),
                    d.div_ceil(2) * nonempty,
                    "slabs {size:?} {c}"
                );
            }
            // Even-parity voxels: one more than half when every side is odd.
            assert_eq!(count("checker3d", size, Six), n.div_ceil(2), "{size:?}");
            // Voxels sharing an edge join where two sides exceed 1; a line
            // of voxels has no edge neighbours at all.
            let line = [w, h, d].iter().filter(|&&s| s > 1).count() < 2;
            let diagonal = if line { n.div_ceil(2) } else { nonempty };
            assert_eq!(count("checker3d", size, Eighteen), diagonal, "{size:?}");
            assert_eq!(count("checker3d", size, TwentySix), diagonal, "{size:?}");
        }
    }

    #[test]
    fn every_kind_at_every_size_with_unique_names() {
        let all = volume_patterns();
        assert_eq!(
            all.len(),
            volume_pattern_kinds().len() * VOLUME_PATTERN_SIZES.len()
        );
        let names: std::collections::HashSet<_> = all.iter().map(|p| &p.name).collect();
        assert_eq!(names.len(), all.len());
        let voxels: usize = all.iter().map(|p| p.volume.voxels().len()).sum();
        assert!(voxels < 1_000_000, "{voxels} voxels");
        assert!(all.iter().any(|p| p.name == "helix-33x33x33"));
        for p in &all {
            let (kind, size) = p.name.rsplit_once('-').unwrap();
            let size: Vec<usize> = size.split('x').map(|s| s.parse().unwrap()).collect();
            let v = &p.volume;
            assert_eq!(size, [v.width(), v.height(), v.depth()], "{}", p.name);
            assert_eq!(
                *v,
                volume_pattern(kind, v.width(), v.height(), v.depth()).unwrap()
            );
        }
    }

    #[test]
    fn unknown_kind_lists_the_known_ones() {
        let err = volume_pattern("spiral", 4, 4, 4).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, Error::InvalidArgument(_)), "{message}");
        assert!(
            message.contains("spiral") && message.contains("helix, hilbert3d, maze3d"),
            "{message}"
        );
        for kind in volume_pattern_kinds() {
            assert!(
                matches!(
                    volume_pattern(kind, 2048, 2048, 1024),
                    Err(Error::VolumeTooLarge { .. })
                ),
                "{kind}"
            );
        }
    }
}
