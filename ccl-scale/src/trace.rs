//! Where a strip labeling's time goes, for profiling: with the environment
//! variable `CCL_TRACE_STRIPS` set to a path, every call appends one CSV
//! row per step of every strip — `call,worker,strip,step,start_ms,end_ms`,
//! milliseconds since the call began — so that a timeline shows which
//! steps of the workers overlap and which wait. The steps end where the
//! host waits for the GPU (a read-back or a synchronize), so a GPU step's
//! span covers its queueing too. Unset, nothing is measured.

use std::fs::OpenOptions;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Calls traced so far in this process: the `call` column.
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// The trace of one labeling call.
pub(crate) struct Trace {
    start: Instant,
    call: usize,
    rows: Option<Mutex<Vec<String>>>,
}

impl Trace {
    /// A trace that records only where `CCL_TRACE_STRIPS` names a file.
    pub(crate) fn from_env() -> Self {
        let enabled = std::env::var_os("CCL_TRACE_STRIPS").is_some();
        Self {
            start: Instant::now(),
            call: CALLS.fetch_add(1, Ordering::Relaxed),
            rows: enabled.then(|| Mutex::new(Vec::new())),
        }
    }

    /// The steps of `strip` on `worker`.
    pub(crate) fn strip(&self, worker: usize, strip: usize) -> StripTrace<'_> {
        StripTrace {
            trace: self,
            worker,
            strip,
        }
    }

    /// Runs `step` and records its span, under no worker or strip (`-`).
    pub(crate) fn step<T>(&self, name: &str, step: impl FnOnce() -> T) -> T {
        self.record(&"-", &"-", name, step)
    }

    fn record<T>(
        &self,
        worker: &dyn std::fmt::Display,
        strip: &dyn std::fmt::Display,
        name: &str,
        step: impl FnOnce() -> T,
    ) -> T {
        let Some(rows) = &self.rows else {
            return step();
        };
        let begin = self.start.elapsed().as_secs_f64() * 1e3;
        let value = step();
        let end = self.start.elapsed().as_secs_f64() * 1e3;
        let row = format!("{},{worker},{strip},{name},{begin:.3},{end:.3}", self.call);
        rows.lock().unwrap_or_else(|e| e.into_inner()).push(row);
        value
    }
}

impl Drop for Trace {
    /// Appends the rows to the file (tracing must not fail a labeling: an
    /// unwritable file loses the trace only).
    fn drop(&mut self) {
        let (Some(rows), Some(path)) = (self.rows.take(), std::env::var_os("CCL_TRACE_STRIPS"))
        else {
            return;
        };
        let rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Ok(mut file) = OpenOptions::new().create(true).append(true).open(path) {
            let _ = file.write_all((rows.join("\n") + "\n").as_bytes());
        }
    }
}

/// The steps of one strip on one worker.
#[derive(Clone, Copy)]
pub(crate) struct StripTrace<'a> {
    trace: &'a Trace,
    worker: usize,
    strip: usize,
}

impl StripTrace<'_> {
    /// Runs `step` and records its span.
    pub(crate) fn step<T>(&self, name: &str, step: impl FnOnce() -> T) -> T {
        self.trace.record(&self.worker, &self.strip, name, step)
    }

    /// Whether the steps are recorded: a step that only queues GPU work
    /// then waits for it, so that its span is that work's.
    pub(crate) fn recording(&self) -> bool {
        self.trace.rows.is_some()
    }
}
