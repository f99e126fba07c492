//! The registry of algorithms, filled by every linked algorithm crate.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::{Algorithm, Backend, Connectivity, Error, Result, Task};

inventory::collect!(Algorithm);

/// Every registered algorithm, sorted by name.
///
/// An algorithm crate registers only if it is linked into the binary: a
/// binary that wants them all names each crate (`use ccl_cpu as _;`).
pub fn registry() -> Vec<&'static Algorithm> {
    sorted().to_vec()
}

/// The registry, collected and sorted once: every algorithm is registered
/// before `main` runs, and each call that names or picks a variant (each
/// Python call does) collected and sorted it again
/// (`bench/2026-11-29-python-small-images`).
fn sorted() -> &'static [&'static Algorithm] {
    static SORTED: OnceLock<Vec<&'static Algorithm>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut all: Vec<&'static Algorithm> = inventory::iter::<Algorithm>.into_iter().collect();
        all.sort_by_key(|a| a.name);
        all
    })
}

/// The algorithm called `name` (or formerly called so, see
/// [`Algorithm::aliases`]), or an error listing the known names.
pub fn find(name: &str) -> Result<&'static Algorithm> {
    let all = sorted();
    all.iter()
        .copied()
        .find(|a| a.is_called(name))
        .ok_or_else(|| Error::UnknownAlgorithm {
            name: name.to_string(),
            known: if all.is_empty() {
                "none (no algorithm crate is linked)".into()
            } else {
                all.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
            },
        })
}

/// The preferred available algorithm for `task` and `connectivity`: among
/// those whose probe succeeds, the one [`Algorithm::preferred_for`] them,
/// else the one of highest [`Algorithm::priority`].
pub fn default_algorithm(task: Task, connectivity: Connectivity) -> Result<&'static Algorithm> {
    preferred(task, connectivity, None)
}

/// [`default_algorithm`] among the algorithms of `backend` only: the one a
/// caller whose data already lies on a GPU wants.
pub fn default_algorithm_on(
    backend: Backend,
    task: Task,
    connectivity: Connectivity,
) -> Result<&'static Algorithm> {
    preferred(task, connectivity, Some(backend))
}

/// [`preferred_probed`], kept per request once found: a probe's outcome
/// is fixed for the process (the CUDA runtime keeps each device's opening),
/// and a host that has no GPU probed every CUDA candidate again on each call
/// that picks one.
fn preferred(
    task: Task,
    connectivity: Connectivity,
    backend: Option<Backend>,
) -> Result<&'static Algorithm> {
    type Request = (Task, Connectivity, Option<Backend>);
    static CHOSEN: OnceLock<Mutex<HashMap<Request, &'static Algorithm>>> = OnceLock::new();
    let chosen = CHOSEN.get_or_init(Default::default);
    let request = (task, connectivity, backend);
    // A poisoned table only misses a choice: it is found again.
    if let Some(&algorithm) = chosen.lock().ok().as_ref().and_then(|c| c.get(&request)) {
        return Ok(algorithm);
    }
    let algorithm = preferred_probed(task, connectivity, backend)?;
    if let Ok(mut chosen) = chosen.lock() {
        chosen.insert(request, algorithm);
    }
    Ok(algorithm)
}

fn preferred_probed(
    task: Task,
    connectivity: Connectivity,
    backend: Option<Backend>,
) -> Result<&'static Algorithm> {
    let mut candidates: Vec<&'static Algorithm> = sorted()
        .iter()
        .copied()
        .filter(|a| a.performs(task) && a.supports(connectivity))
        .filter(|a| backend.is_none_or(|b| a.backend == b))
        .collect();
    candidates.sort_by_key(|a| {
        let claims = a.preferred_for.contains(&(task, connectivity));
        std::cmp::Reverse((claims, a.priority))
    });
    candidates
        .iter()
        .copied()
        .find(|a| a.probe().is_ok())
        .ok_or_else(|| {
            let on = backend.map_or(String::new(), |b| format!(" on {b}"));
            Error::Unavailable(format!(
                "no available algorithm{on} can {task} with {connectivity}-connectivity"
            ))
        })
}
