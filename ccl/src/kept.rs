//! Labelers and analyzers kept between a thread's calls of [`Variant`]'s
//! host methods: a labeler keeps its scratch (`cpu-rle`'s runs and forests,
//! the merge's per-label tables), so that a thread labeling one image after
//! another allocates and faults in nothing after its first call, as a
//! caller who keeps a labeler gets. Made anew per call, a 2048² labeling
//! from Python spent more time in its scratch's first writes than labeling.
//!
//! Per thread, so that nothing is shared (the labelers are not `Send`) and
//! concurrent callers never wait for one another; one labeler and one
//! analyzer per variant and thread, each holding the scratch of the largest
//! input it has seen. CPU variants only: a CUDA variant's labeler holds
//! device memory and a stream, which a thread's destructors could free
//! after the driver is gone at exit (its host images go through
//! `ccl_cuda::interop::pool` where it matters).
//!
//! [`Variant`]: crate::Variant

use std::cell::RefCell;
use std::collections::HashMap;
use std::thread::LocalKey;

use crate::{Algorithm, Analyzer, Backend, Labeler, Result};

/// Kept objects of one kind, by variant name.
type Kept<T> = RefCell<HashMap<&'static str, Box<T>>>;

thread_local! {
    static LABELERS: Kept<dyn Labeler> = RefCell::new(HashMap::new());
    static ANALYZERS: Kept<dyn Analyzer> = RefCell::new(HashMap::new());
}

/// `work` on this thread's labeler of `algorithm` (made on first use). (The
/// closures around `work` below shorten the kept `dyn` objects' `'static`
/// to the borrow's lifetime, which `work`'s signature asks for.)
pub(crate) fn with_labeler<R>(
    algorithm: &'static Algorithm,
    work: impl FnOnce(&mut dyn Labeler) -> Result<R>,
) -> Result<R> {
    with_kept(&LABELERS, algorithm, || algorithm.labeler(), |l| work(l))
}

/// `work` on this thread's analyzer of `algorithm` (made on first use).
pub(crate) fn with_analyzer<R>(
    algorithm: &'static Algorithm,
    work: impl FnOnce(&mut dyn Analyzer) -> Result<R>,
) -> Result<R> {
    with_kept(&ANALYZERS, algorithm, || algorithm.analyzer(), |a| work(a))
}

/// `work` on the object `store` keeps for `algorithm`, or on a new one
/// from `make`; kept again afterwards (a CUDA variant's: made anew). It is out of the store during `work`, so
/// a call nested in it makes its own.
fn with_kept<T: ?Sized, R>(
    store: &'static LocalKey<Kept<T>>,
    algorithm: &'static Algorithm,
    make: impl FnOnce() -> Result<Box<T>>,
    work: impl FnOnce(&mut T) -> Result<R>,
) -> Result<R> {
    if algorithm.backend != Backend::Cpu {
        return work(&mut *make()?);
    }
    let name = algorithm.name;
    let mut object = match store.with(|kept| kept.borrow_mut().remove(name)) {
        Some(object) => object,
        None => make()?,
    };
    let result = work(&mut *object);
    store.with(|kept| kept.borrow_mut().insert(name, object));
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BinaryImage, Connectivity, find};

    #[test]
    fn a_thread_keeps_one_labeler_per_variant() {
        let algorithm = find("cpu-rle").unwrap();
        let image = BinaryImage::new(&[1, 0, 1, 1], 2, 2).unwrap();
        let first: *const () = with_labeler(algorithm, |labeler| {
            labeler.label(&image, Connectivity::Four)?;
            Ok((labeler as *const dyn Labeler).cast())
        })
        .unwrap();
        let again: *const () = with_labeler(algorithm, |labeler| {
            // A nested call while the kept one is out makes its own.
            let nested: *const () =
                with_labeler(algorithm, |inner| Ok((inner as *const dyn Labeler).cast()))?;
            assert_ne!(nested, (labeler as *const dyn Labeler).cast());
            Ok((labeler as *const dyn Labeler).cast())
        })
        .unwrap();
        assert_eq!(first, again, "the second call got a new labeler");
        // Another thread has its own.
        let other: usize = std::thread::spawn(move || {
            with_labeler(algorithm, |labeler| {
                Ok((labeler as *const dyn Labeler).cast::<()>() as usize)
            })
            .unwrap()
        })
        .join()
        .unwrap();
        assert_ne!(other, first as usize);
    }
}
