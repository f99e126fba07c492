//! A union-find forest whose roots are each tree's smallest index: what a
//! merge needs when indices are in raster order (runs of a class map, the
//! labels on the borders of strips), so that a component's root is its
//! first member and numbering roots in index order is canonical.

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
        Self {
            parent: (0..len as u32).collect(),
        }
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
