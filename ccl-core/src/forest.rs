//! A union-find forest whose roots are each tree's smallest index: what a
//! merge needs when indices are in raster order (runs of a class map, the
//! labels on the borders of strips), so that a component's root is its
//! first member and numbering roots in index order is canonical.

use std::sync::atomic::{AtomicU32, Ordering};

/// A union-find over the indices `0..len` (`u32`: half the memory traffic
/// of `usize`), roots the smallest index of their tree.
///
/// ```
/// let mut forest = ccl_core::MinRootForest::new(4);
/// forest.union(3, 1);
/// forest.union(2, 3);
/// assert_eq!((forest.find(2), forest.find(0)), (1, 0));
/// // A non-root's parent comes before it.
/// assert!(forest.into_parents().iter().enumerate().all(|(i, &p)| p as usize <= i));
/// ```
#[derive(Clone, Debug)]
pub struct MinRootForest {
    parent: Vec<u32>,
}

impl MinRootForest {
    /// `len` trees of one index each; `len` must fit a `u32`.
    pub fn new(len: usize) -> Self {
        debug_assert!(len <= u32::MAX as usize);
        // In memory advised for huge pages: a forest over millions of runs
        // faulted in a page per 4 KiB as it was first written.
        let mut parent = crate::pages::with_capacity(len);
        parent.extend(0..len as u32);
        Self { parent }
    }

    /// `len` trees of one index each in `memory` (any vector of `u32`; its
    /// values are overwritten): a forest made again and again, as a strip
    /// merge's per border, allocates and faults in no memory after its
    /// first (a new allocation where `memory` holds fewer than `len`).
    pub fn reusing(mut memory: Vec<u32>, len: usize) -> Self {
        if memory.capacity() < len {
            return Self::new(len);
        }
        memory.clear();
        memory.extend(0..len as u32);
        Self { parent: memory }
    }

    /// The root of `i`, halving the path on the way (every node visited
    /// then points to its grandparent), which keeps trees shallow.
    pub fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let grandparent = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = grandparent;
            i = grandparent;
        }
        i
    }

    /// Joins the trees of `a` and `b` under the smaller of their roots.
    pub fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a < b {
            self.parent[b as usize] = a;
        } else {
            self.parent[a as usize] = b;
        }
    }

    /// Each index's parent (itself for a root, an index before it
    /// otherwise), the forest's memory given to the caller.
    pub fn into_parents(self) -> Vec<u32> {
        self.parent
    }
}

/// [`MinRootForest`] that many threads join at once (`&self`): each parent
/// an atomic, a root linked under a smaller one by compare-and-swap, so
/// that roots stay each tree's smallest index and a non-root's parent
/// comes before it, whatever the order of the unions.
///
/// ```
/// let forest = ccl_core::SharedMinRootForest::new(6);
/// std::thread::scope(|scope| {
///     scope.spawn(|| forest.union(5, 3));
///     scope.spawn(|| forest.union(3, 1));
/// });
/// assert_eq!((forest.find(5), forest.find(0)), (1, 0));
/// assert!(forest.into_parents().iter().enumerate().all(|(i, &p)| p as usize <= i));
/// ```
#[derive(Debug)]
pub struct SharedMinRootForest {
    parent: Vec<AtomicU32>,
}

impl SharedMinRootForest {
    /// `len` trees of one index each; `len` must fit a `u32`.
    pub fn new(len: usize) -> Self {
        debug_assert!(len <= u32::MAX as usize);
        // Huge pages, as `MinRootForest`'s: the merge of a 1024³ volume's
        // strips (2.4 M nodes) spent 1.4–2.4 ms faulting in small ones.
        let mut parent = crate::pages::with_capacity(len);
        parent.extend((0..len as u32).map(AtomicU32::new));
        Self { parent }
    }

    /// `len` trees of one index each in `memory`, which an earlier forest
    /// gave back ([`into_memory`](Self::into_memory)): a merge made call
    /// after call then allocates, and faults in, no memory after its first
    /// (a new allocation where `memory` holds fewer than `len`).
    pub fn reusing(mut memory: Vec<AtomicU32>, len: usize) -> Self {
        if memory.capacity() < len {
            return Self::new(len);
        }
        memory.clear();
        memory.extend((0..len as u32).map(AtomicU32::new));
        Self { parent: memory }
    }

    /// The root of `i` (at the time of the call), pointing each node on the
    /// way to its grandparent. A parent only ever moves to an ancestor, a
    /// smaller index, so a stale read still leads to the root.
    pub fn find(&self, mut i: u32) -> u32 {
        loop {
            let parent = self.parent[i as usize].load(Ordering::Relaxed);
            if parent == i {
                return i;
            }
            let grandparent = self.parent[parent as usize].load(Ordering::Relaxed);
            if grandparent != parent {
                self.parent[i as usize].fetch_min(grandparent, Ordering::Relaxed);
            }
            i = grandparent;
        }
    }

    /// Joins the trees of `a` and `b` under the smaller of their roots.
    pub fn union(&self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        while a != b {
            let (low, high) = (a.min(b), a.max(b));
            // `high` is linked only while it is still a root; if another
            // thread linked it first, join from where it now leads.
            match self.parent[high as usize].compare_exchange(
                high,
                low,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(_) => (a, b) = (self.find(high), self.find(low)),
            }
        }
    }

    /// The forest's memory, each index's parent as
    /// [`into_parents`](Self::into_parents) gives it, kept atomic so that
    /// [`reusing`](Self::reusing) takes it back without a copy.
    pub fn into_memory(self) -> Vec<AtomicU32> {
        self.parent
    }

    /// Each index's parent (itself for a root, an index before it
    /// otherwise), once every union is done.
    pub fn into_parents(self) -> Vec<u32> {
        self.parent.into_iter().map(AtomicU32::into_inner).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unions from several threads at once give the trees, and the roots,
    /// that the same unions give one after the other.
    #[test]
    fn shared_unions_equal_serial_ones() {
        let len = 20_000u32;
        // A fixed pseudo-random sequence of pairs (a linear congruential walk).
        let mut state = 12345u64;
        let pairs: Vec<(u32, u32)> = (0..15_000)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) as u32 % len, (state >> 7) as u32 % len)
            })
            .collect();
        let mut serial = MinRootForest::new(len as usize);
        for &(a, b) in &pairs {
            serial.union(a, b);
        }
        let shared = SharedMinRootForest::new(len as usize);
        std::thread::scope(|scope| {
            for part in pairs.chunks(1000) {
                let shared = &shared;
                scope.spawn(move || part.iter().for_each(|&(a, b)| shared.union(a, b)));
            }
        });
        let roots: Vec<u32> = (0..len).map(|i| shared.find(i)).collect();
        let expected: Vec<u32> = (0..len).map(|i| serial.find(i)).collect();
        assert_eq!(roots, expected);
        let parents = shared.into_parents();
        assert!(parents.iter().enumerate().all(|(i, &p)| p as usize <= i));
    }

    /// A forest in a reused vector starts as singletons whatever the vector
    /// held, of the length asked for, shorter or longer than its room.
    #[test]
    fn a_forest_in_reused_memory_starts_afresh() {
        let mut memory = vec![7u32; 8];
        for len in [5, 8, 20] {
            let mut forest = MinRootForest::reusing(memory, len);
            assert!((0..len as u32).all(|i| forest.find(i) == i), "len {len}");
            forest.union(4, 2);
            memory = forest.into_parents();
            let mut expected: Vec<u32> = (0..len as u32).collect();
            expected[4] = 2;
            assert_eq!(memory, expected, "len {len}");
        }
    }

    /// A forest in the memory of a used one starts as singletons, of the
    /// length asked for (shorter, or longer than the memory holds).
    #[test]
    fn a_reused_forest_starts_afresh() {
        let used = SharedMinRootForest::new(10);
        (1..10).for_each(|i| used.union(i, i - 1));
        let mut memory = used.into_memory();
        for len in [6, 10, 25] {
            let forest = SharedMinRootForest::reusing(memory, len);
            assert!((0..len as u32).all(|i| forest.find(i) == i), "len {len}");
            forest.union(5, 2);
            forest.union(2, 4);
            forest.union(1, 3);
            let roots: Vec<u32> = (0..len as u32).map(|i| forest.find(i)).collect();
            let mut expected: Vec<u32> = (0..len as u32).collect();
            (expected[3], expected[4], expected[5]) = (1, 2, 2);
            assert_eq!(roots, expected, "len {len}");
            memory = forest.into_memory();
        }
    }
}
