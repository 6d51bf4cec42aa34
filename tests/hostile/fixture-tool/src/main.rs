//! `fixture-tool`: the native helper of `tests/hostile/build.sh`.
//!
//! ```text
//! fixture-tool wat <in.wat> <out.wasm>
//!     Assemble a WebAssembly text file (core module or component).
//! fixture-tool component <core.wat> <wit-dir> <world> <out.wasm>
//!     Assemble a core module written by hand against the canonical ABI and
//!     wrap it in a component of `world` from the WIT package in `wit-dir`
//!     (as wit-bindgen and wasm-component-ld would for a compiled one).
//! fixture-tool expect <file.wasm> [--component | --module] [--import PREFIX]...
//!                     [--export PREFIX]... [--no-export PREFIX]... [--min-memory-mib N]
//!     Check that a built fixture has the shape it claims: its encoding,
//!     top-level component imports/exports whose names start with PREFIX,
//!     and the largest initial size of any linear memory in it. Exits 1 with
//!     a message naming the file and the unmet expectation otherwise.
//! ```

use std::process::ExitCode;
use wasmparser::{Encoding, Parser, Payload};

/// What `expect` found in a binary.
#[derive(Debug, Default)]
struct Shape {
    /// Encoding of the outermost binary.
    component: bool,
    /// Names of the outermost component's imports.
    imports: Vec<String>,
    /// Names of the outermost component's exports.
    exports: Vec<String>,
    /// Largest initial size of any memory defined in any nested core
    /// module, in bytes.
    max_initial_memory: u64,
}

/// Parses a core module or component and collects its [`Shape`].
fn shape(bytes: &[u8]) -> Result<Shape, String> {
    let mut shape = Shape::default();
    // Encoding of each nesting level; the outermost is first.
    let mut levels: Vec<Encoding> = Vec::new();
    let mut saw_header = false;
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(|e| format!("not valid WebAssembly: {e}"))?;
        match payload {
            Payload::Version { encoding, .. } => {
                if !saw_header {
                    shape.component = encoding == Encoding::Component;
                    saw_header = true;
                }
                levels.push(encoding);
            }
            Payload::End(_) => {
                levels.pop();
            }
            Payload::ComponentImportSection(reader) if levels.len() == 1 => {
                for import in reader {
                    let import = import.map_err(|e| e.to_string())?;
                    shape.imports.push(import.name.full_name().into_owned());
                }
            }
            Payload::ComponentExportSection(reader) if levels.len() == 1 => {
                for export in reader {
                    let export = export.map_err(|e| e.to_string())?;
                    shape.exports.push(export.name.full_name().into_owned());
                }
            }
            Payload::MemorySection(reader) => {
                for memory in reader {
                    let memory = memory.map_err(|e| e.to_string())?;
                    let page = 1u64 << memory.page_size_log2.unwrap_or(16);
                    shape.max_initial_memory = shape.max_initial_memory.max(memory.initial * page);
                }
            }
            _ => {}
        }
    }
    if !saw_header {
        return Err("not valid WebAssembly: no header".into());
    }
    Ok(shape)
}

/// Checks `shape` against the `expect` options; returns the unmet ones.
fn unmet(shape: &Shape, options: &[String]) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let mut options = options.iter();
    while let Some(option) = options.next() {
        let mut value = || {
            options
                .next()
                .ok_or_else(|| format!("{option} needs a value"))
        };
        match option.as_str() {
            "--component" if !shape.component => {
                problems.push("is a core module, expected a component".into())
            }
            "--module" if shape.component => {
                problems.push("is a component, expected a core module".into())
            }
            "--component" | "--module" => {}
            "--import" => {
                let prefix = value()?;
                if !shape.imports.iter().any(|i| i.starts_with(prefix.as_str())) {
                    problems.push(format!(
                        "imports nothing named {prefix}* (imports: {:?})",
                        shape.imports
                    ));
                }
            }
            "--export" => {
                let prefix = value()?;
                if !shape.exports.iter().any(|e| e.starts_with(prefix.as_str())) {
                    problems.push(format!(
                        "exports nothing named {prefix}* (exports: {:?})",
                        shape.exports
                    ));
                }
            }
            "--no-export" => {
                let prefix = value()?;
                if let Some(found) = shape
                    .exports
                    .iter()
                    .find(|e| e.starts_with(prefix.as_str()))
                {
                    problems.push(format!("exports {found}"));
                }
            }
            "--min-memory-mib" => {
                let mib: u64 = value()?
                    .parse()
                    .map_err(|e| format!("--min-memory-mib: {e}"))?;
                if shape.max_initial_memory < mib << 20 {
                    problems.push(format!(
                        "largest initial memory is {} bytes, expected at least {mib} MiB",
                        shape.max_initial_memory
                    ));
                }
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(problems)
}

fn run(args: &[String]) -> Result<(), String> {
    match args {
        [cmd, input, output] if cmd == "wat" => {
            let bytes = wat::parse_file(input).map_err(|e| format!("{input}: {e}"))?;
            std::fs::write(output, bytes).map_err(|e| format!("{output}: {e}"))
        }
        [cmd, input, wit, world, output] if cmd == "component" => {
            let bytes = component(input, wit, world).map_err(|e| format!("{input}: {e:#}"))?;
            std::fs::write(output, bytes).map_err(|e| format!("{output}: {e}"))
        }
        [cmd, file, options @ ..] if cmd == "expect" => {
            let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
            let shape = shape(&bytes).map_err(|e| format!("{file}: {e}"))?;
            let problems = unmet(&shape, options)?;
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!("{file}: {}", problems.join("; ")))
            }
        }
        _ => Err("usage: fixture-tool wat <in.wat> <out.wasm> | \
             fixture-tool component <core.wat> <wit-dir> <world> <out.wasm> | \
             fixture-tool expect <file.wasm> [options]"
            .into()),
    }
}

/// Assembles the core module in `input`, embeds the type of `world` from
/// the WIT package in `wit`, and encodes the component (validated).
fn component(input: &str, wit: &str, world: &str) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut module = wat::parse_file(input)?;
    let mut resolve = wit_parser::Resolve::default();
    let (package, _) = resolve.push_dir(wit)?;
    let world = resolve.select_world(&[package], Some(world))?;
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
    )?;
    Ok(wit_component::ComponentEncoder::default()
        .module(&module)?
        .validate(true)
        .encode()?)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("fixture-tool: {message}");
            ExitCode::FAILURE
        }
    }
}
