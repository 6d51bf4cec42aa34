//! Python values to JSON text and back.
//!
//! Calls arrive as Python objects (dicts, lists, strings, numbers, `None`,
//! booleans); they are written straight to JSON text, which the core parses
//! and validates as it does for the CLI. Anything that is not JSON (a set,
//! bytes, a float NaN, a non-string key, an object) is an error that names
//! where it is (`call.arguments.paths[2]`), never a guess.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::fmt::Write as _;

use crate::errors;

/// Deepest nesting written (the core refuses deeper calls too; stopping
/// here keeps a self-referencing list from recursing without end).
const MAX_DEPTH: usize = toolvet::call::MAX_NESTING;

/// Append `value` as JSON to `out`. `path` names the value in errors.
pub(crate) fn write_json(
    value: &Bound<'_, PyAny>,
    path: &mut String,
    out: &mut String,
) -> PyResult<()> {
    write_value(value, path, out, 0)
}

fn write_value(
    value: &Bound<'_, PyAny>,
    path: &mut String,
    out: &mut String,
    depth: usize,
) -> PyResult<()> {
    if value.is_none() {
        out.push_str("null");
    } else if let Ok(s) = value.cast::<PyString>() {
        write_str(s.to_str()?, out);
    } else if let Ok(b) = value.cast::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if let Ok(i) = value.cast::<PyInt>() {
        match i.extract::<i64>() {
            Ok(n) => {
                let _ = write!(out, "{n}");
            }
            // Beyond 64 bits: Python's own decimal digits are valid JSON.
            Err(_) => out.push_str(i.str()?.to_str()?),
        }
    } else if let Ok(f) = value.cast::<PyFloat>() {
        let x = f.value();
        if !x.is_finite() {
            return Err(type_error(path, &format!("{x} is not a JSON number")));
        }
        out.push_str(
            &serde_json::Number::from_f64(x).map_or_else(|| "0".into(), |n| n.to_string()),
        );
    } else if let Ok(d) = value.cast::<PyDict>() {
        nest(path, depth)?;
        out.push('{');
        for (i, (k, v)) in d.iter().enumerate() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(type_error(
                    path,
                    &format!(
                        "has a key of type {}; JSON object keys are strings",
                        type_name(&k)
                    ),
                ));
            };
            let key = key.to_str()?;
            if i > 0 {
                out.push(',');
            }
            write_str(key, out);
            out.push(':');
            let len = path.len();
            push_key(path, key);
            write_value(&v, path, out, depth + 1)?;
            path.truncate(len);
        }
        out.push('}');
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        nest(path, depth)?;
        out.push('[');
        for (i, item) in value.try_iter()?.enumerate() {
            if i > 0 {
                out.push(',');
            }
            let len = path.len();
            let _ = write!(path, "[{i}]");
            write_value(&item?, path, out, depth + 1)?;
            path.truncate(len);
        }
        out.push(']');
    } else {
        return Err(type_error(
            path,
            &format!(
                "is a {}, which is not JSON (use dicts, lists, strings, numbers, booleans and None)",
                type_name(value)
            ),
        ));
    }
    Ok(())
}

fn nest(path: &str, depth: usize) -> PyResult<()> {
    if depth >= MAX_DEPTH {
        return Err(type_error(
            path,
            &format!("nests lists/dicts over the limit of {MAX_DEPTH} levels"),
        ));
    }
    Ok(())
}

fn push_key(path: &mut String, key: &str) {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    {
        path.push('.');
        path.push_str(key);
    } else {
        let _ = write!(path, "[{key:?}]");
    }
}

/// `s` as a JSON string literal (escaping as serde_json does: `"`, `\\`,
/// and control characters).
pub(crate) fn write_str(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

fn type_error(path: &str, what: &str) -> PyErr {
    errors::call_error(&format!("invalid tool call: `{path}` {what}"))
}

/// JSON text to Python values (through the standard `json` module, so
/// numbers and strings come back exactly as Python reads JSON).
pub(crate) fn json_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (text,))
        .map_err(|e| {
            PyValueError::new_err(format!("toolvet produced JSON Python cannot read: {e}"))
        })
}
