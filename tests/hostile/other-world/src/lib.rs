//! `other-world`: a well-formed component of another world. It exports
//! `toolvet-hostile:other/greeter@0.1.0` (`tests/hostile/wit-other`) and
//! nothing of `toolvet:check`, so the host must refuse it as a check at load.

wit_bindgen::generate!({ path: "../wit-other", world: "other" });

use exports::toolvet_hostile::other::greeter::Guest;

struct Greeter;

impl Guest for Greeter {
    fn greet(name: String) -> String {
        format!("hello, {name}")
    }
}

export!(Greeter);
