//! `ccl list`: every registered variant and whether it can run here.

use std::process::ExitCode;

use crate::output::{Stdout, out};
use ccl_core::{Algorithm, Task};

pub(crate) fn run() -> Result<ExitCode, crate::Error> {
    let registry = ccl::algorithms();
    // Probing a CUDA variant initialises the driver: do it once per variant.
    let probes: Vec<ccl_core::Result<()>> = registry.iter().map(|a| a.probe()).collect();
    let header = ["name", "backend", "conn", "tasks", "status"].map(String::from);
    let rows: Vec<[String; 5]> = registry
        .iter()
        .zip(&probes)
        .map(|(a, probe)| describe(a, probe.is_ok()))
        .collect();
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let line = |cells: &[String; 5], summary: &str| {
        let mut text = String::new();
        for (cell, width) in cells.iter().zip(widths) {
            text += &format!("{cell:<width$}  ");
        }
        text + summary
    };
    let mut out = Stdout::lock();
    out!(out, "{}", line(&header, "summary"))?;
    for ((algorithm, row), probe) in registry.iter().zip(&rows).zip(&probes) {
        out!(out, "{}", line(row, algorithm.summary))?;
        if let Err(reason) = probe {
            out!(out, "    unavailable: {reason}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Name, backend, connectivities, tasks and status of one variant.
fn describe(algorithm: &Algorithm, available: bool) -> [String; 5] {
    let connectivities = algorithm
        .connectivities
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let tasks = [Task::Label, Task::Analyze]
        .into_iter()
        .filter(|&task| algorithm.performs(task))
        .map(|task| task.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let status = if available {
        "available"
    } else {
        "unavailable"
    };
    [
        algorithm.name.to_string(),
        algorithm.backend.to_string(),
        connectivities,
        tasks,
        status.to_string(),
    ]
}
