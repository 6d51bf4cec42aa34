//! With the `ext-mcp` feature: the ExtMcp messages and service from
//! `proto/ext_mcp.proto`, compiled by protox (no `protoc` needed).

fn main() {
    #[cfg(feature = "ext-mcp")]
    ext_mcp();
}

#[cfg(feature = "ext-mcp")]
fn ext_mcp() {
    println!("cargo:rerun-if-changed=proto/ext_mcp.proto");
    let files = protox::compile(["proto/ext_mcp.proto"], ["proto"])
        .unwrap_or_else(|e| panic!("proto/ext_mcp.proto: {e}"));
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(files)
        .unwrap_or_else(|e| panic!("generating the ExtMcp code: {e}"));
}
