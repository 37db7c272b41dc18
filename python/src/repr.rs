//! Reprs of the result classes in Python's own terms: each field as
//! Python's `repr` shows it (None, floats, lists), never Rust's `Debug`.

use pyo3::prelude::*;
use pyo3::types::PyTypeMethods;

/// `<darkhex.Name field=value ...>` of `fields` of `obj`.
pub fn fields_repr(obj: &Bound<'_, PyAny>, fields: &[&str]) -> PyResult<String> {
    let mut text = format!("<darkhex.{}", obj.get_type().name()?);
    for field in fields {
        text.push_str(&format!(" {field}={}", obj.getattr(*field)?.repr()?));
    }
    text.push('>');
    Ok(text)
}
