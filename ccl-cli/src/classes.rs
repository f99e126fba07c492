//! `ccl label --classes`: the components of a class map (a `.npy` of
//! integers, 2-D or 3-D): neighbours of equal nonzero value are connected,
//! each class's components labeled apart (cc3d's multilabel labeling), on
//! the GPU where one runs, else on the CPU (`ccl::label_classes`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use ccl::{ClassMap, ClassValue, Connectivity, LabelImage, LabelVolume};
use ccl_io::{ClassMapFile, ClassValues, ReadOptions};

use crate::output::{Stdout, out};

/// What the class-map labeling takes from the command line.
pub(crate) struct Classes<'a> {
    pub(crate) input: &'a Path,
    pub(crate) output: Option<&'a Path>,
    pub(crate) class_table: Option<&'a Path>,
    pub(crate) connectivity: Option<Connectivity>,
    pub(crate) max_pixels: u64,
}

pub(crate) fn run(classes: Classes<'_>) -> Result<ExitCode, crate::Error> {
    let options = ReadOptions {
        max_pixels: classes.max_pixels,
        ..ReadOptions::default()
    };
    let map = ccl_io::read_class_map(classes.input, &options)?;
    let connectivity = classes.connectivity.unwrap_or(if map.dimensions == 2 {
        Connectivity::Eight
    } else {
        Connectivity::TwentySix
    });
    if map.dimensions == 3 && map.depth > 1 && connectivity.check_dimensions(3).is_err() {
        return Err(format!(
            "-c {connectivity}: {} is a volume of {} slices; volumes take 6, 18 or 26",
            classes.input.display(),
            map.depth
        )
        .into());
    }
    // The labels and each component's class, as text (any integer type).
    let (labels, class_names) = match &map.values {
        ClassValues::U8(v) => label(&map, v, connectivity)?,
        ClassValues::I8(v) => label(&map, v, connectivity)?,
        ClassValues::U16(v) => label(&map, v, connectivity)?,
        ClassValues::I16(v) => label(&map, v, connectivity)?,
        ClassValues::U32(v) => label(&map, v, connectivity)?,
        ClassValues::I32(v) => label(&map, v, connectivity)?,
        ClassValues::U64(v) => label(&map, v, connectivity)?,
        ClassValues::I64(v) => label(&map, v, connectivity)?,
    };
    if let Some(output) = classes.output {
        if connectivity.check_dimensions(2).is_ok() {
            let image = LabelImage::new(map.width, map.height, labels.into_labels())?;
            ccl_io::save_labels(&image, output)?;
        } else {
            ccl_io::save_volume_labels(&labels, output)?;
        }
    }
    if let Some(table) = classes.class_table {
        let mut csv = String::from("label,class\n");
        for (index, class) in class_names.iter().enumerate() {
            csv.push_str(&format!("{},{class}\n", index + 1));
        }
        std::fs::File::create(table)
            .and_then(|mut f| f.write_all(csv.as_bytes()))
            .map_err(|e| format!("{}: {e}", table.display()))?;
    }
    let mut distinct = class_names.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let count = class_names.len();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    out!(
        Stdout::lock(),
        "{count} component{} in {} class{}",
        plural(count),
        distinct.len(),
        if distinct.len() == 1 { "" } else { "es" }
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The canonical labels of `values` (the map's) and each component's class.
fn label<T: ClassValue + ToString>(
    map: &ClassMapFile,
    values: &[T],
    connectivity: Connectivity,
) -> Result<(LabelVolume, Vec<String>), crate::Error> {
    let map = ClassMap::new(values, map.width, map.height, map.depth)?;
    let labeled = ccl::label_classes(&map, connectivity)?;
    let names = labeled.classes.iter().map(T::to_string).collect();
    Ok((labeled.labels, names))
}
