//! Results in host memory handed to numpy without a copy: a [`HostArray`]
//! owns a Rust vector and exposes numpy's array interface, so that
//! `numpy.asarray` wraps the vector's memory and keeps the owner alive.

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The owned elements and their numpy type string.
enum Elements {
    U32(Vec<u32>),
    /// `u32` values stored as they are and presented as `int32` (OpenCV's
    /// label type; canonical labels stay below 2^31).
    U32AsI32(Vec<u32>),
    I32(Vec<i32>),
    U64(Vec<u64>),
    F64(Vec<f64>),
}

impl Elements {
    fn address_and_len(&self) -> (usize, usize) {
        match self {
            Elements::U32(v) | Elements::U32AsI32(v) => (v.as_ptr() as usize, v.len()),
            Elements::I32(v) => (v.as_ptr() as usize, v.len()),
            Elements::U64(v) => (v.as_ptr() as usize, v.len()),
            Elements::F64(v) => (v.as_ptr() as usize, v.len()),
        }
    }

    fn typestr(&self) -> &'static str {
        match self {
            Elements::U32(_) => "<u4",
            Elements::U32AsI32(_) | Elements::I32(_) => "<i4",
            Elements::U64(_) => "<u8",
            Elements::F64(_) => "<f8",
        }
    }
}

/// A C-ordered array owned by Rust, for `numpy.asarray` (`__array_interface__`).
#[pyclass(module = "ccl._ccl", frozen)]
pub struct HostArray {
    elements: Elements,
    shape: Vec<usize>,
}

impl HostArray {
    fn new(elements: Elements, shape: Vec<usize>) -> Self {
        debug_assert_eq!(
            elements.address_and_len().1,
            shape.iter().product::<usize>()
        );
        Self { elements, shape }
    }

    /// `uint32` elements of `shape`.
    pub fn u32(values: Vec<u32>, shape: Vec<usize>) -> Self {
        Self::new(Elements::U32(values), shape)
    }

    /// `uint32` values presented as `int32`.
    pub fn u32_as_i32(values: Vec<u32>, shape: Vec<usize>) -> Self {
        Self::new(Elements::U32AsI32(values), shape)
    }

    /// `int32` elements of `shape`.
    pub fn i32(values: Vec<i32>, shape: Vec<usize>) -> Self {
        Self::new(Elements::I32(values), shape)
    }

    /// `uint64` elements of `shape`.
    pub fn u64(values: Vec<u64>, shape: Vec<usize>) -> Self {
        Self::new(Elements::U64(values), shape)
    }

    /// `float64` elements of `shape`.
    pub fn f64(values: Vec<f64>, shape: Vec<usize>) -> Self {
        Self::new(Elements::F64(values), shape)
    }
}

#[pymethods]
impl HostArray {
    /// numpy's array interface (version 3), read by `numpy.asarray`.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (address, len) = self.elements.address_and_len();
        // An empty vector's pointer is dangling but non-null, which numpy
        // accepts for zero elements.
        let interface = PyDict::new(py);
        interface.set_item("shape", pyo3::types::PyTuple::new(py, &self.shape)?)?;
        interface.set_item("typestr", self.elements.typestr())?;
        interface.set_item("data", (address, false))?;
        interface.set_item("version", 3)?;
        debug_assert_eq!(len, self.shape.iter().product::<usize>());
        Ok(interface)
    }
}
