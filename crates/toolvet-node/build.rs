//! napi-rs build setup (link arguments and cfgs per target).

fn main() {
    napi_build::setup();
}
