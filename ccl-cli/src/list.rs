//! `ccl list`: every registered variant, whether it can run here, and what
//! it is the default for here.

use std::process::ExitCode;

use crate::output::{Stdout, out};
use ccl_core::{Algorithm, Connectivity, Task};

pub(crate) fn run() -> Result<ExitCode, crate::Error> {
    let registry = ccl::algorithms();
    // Probing a CUDA variant initialises the driver: do it once per variant.
    let probes: Vec<ccl_core::Result<()>> = registry.iter().map(|a| a.probe()).collect();
    // What `label` and `analyze` run here without `-a`.
    let defaults: Vec<(Task, Connectivity, &str)> = [Task::Label, Task::Analyze]
        .into_iter()
        .flat_map(|task| Connectivity::PLANE.map(move |c| (task, c)))
        .filter_map(|(task, c)| {
            let algorithm = ccl::default_algorithm(task, c).ok()?;
            Some((task, c, algorithm.name))
        })
        .collect();
    let header = ["name", "backend", "conn", "tasks", "status", "default here"].map(String::from);
    let rows: Vec<[String; 6]> = registry
        .iter()
        .zip(&probes)
        .map(|(a, probe)| describe(a, probe.is_ok(), &defaults))
        .collect();
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let line = |cells: &[String; 6], summary: &str| {
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

/// Name, backend, connectivities, tasks, status of one variant, and the
/// tasks and connectivities it is the default for here (`label 4`,
/// `analyze 4,8`, or `-`).
fn describe(
    algorithm: &Algorithm,
    available: bool,
    defaults: &[(Task, Connectivity, &str)],
) -> [String; 6] {
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
    let default_for: Vec<String> = [Task::Label, Task::Analyze]
        .into_iter()
        .filter_map(|task| {
            let mine: Vec<String> = defaults
                .iter()
                .filter(|&&(t, _, name)| t == task && name == algorithm.name)
                .map(|(_, c, _)| c.to_string())
                .collect();
            (!mine.is_empty()).then(|| format!("{task} {}", mine.join(",")))
        })
        .collect();
    [
        algorithm.name.to_string(),
        algorithm.backend.to_string(),
        connectivities,
        tasks,
        status.to_string(),
        if default_for.is_empty() {
            "-".into()
        } else {
            default_for.join("; ")
        },
    ]
}
