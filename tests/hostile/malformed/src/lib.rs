//! `malformed`: a check plugin whose exports break the canonical ABI, so
//! the host cannot lift what they return.
//!
//! The component's type is the real `toolvet:check/plugin` world (the
//! bindings below only embed its type information), so it loads; its three
//! exports are written by hand against the canonical ABI instead of through
//! wit-bindgen's `export!`, which lets `check` return bytes that no valid
//! `decision` has. What it returns is chosen by its settings:
//!
//! | settings | `check` returns |
//! |---|---|
//! | `{}` or `{"behave": "allow"}` | a valid `allow` (the control: proves the hand-written ABI is right) |
//! | `{"behave": "deny"}` | a valid `deny` with rule `malformed.valid` (the control for the reason layout) |
//! | `{"behave": "bad-variant"}` | decision discriminant 4 (there are 4 cases, 0-3) |
//! | `{"behave": "bad-utf8"}` | a deny whose message is not UTF-8 |
//! | `{"behave": "bad-pointer"}` | a deny whose message points outside linear memory |
//! | `{"behave": "bad-length"}` | a deny whose message length runs past the end of linear memory |
//! | `{"behave": "bad-option"}` | a deny whose `rule` option has discriminant 2 |
//! | `{"behave": "bad-return-pointer"}` | a return-area pointer outside linear memory |
//! | `{"behave": "unaligned-return"}` | a return-area pointer that is not 4-byte aligned |
//! | `{"configure": "bad-result"}` | `configure` returns a `result` with discriminant 2 |
//!
//! Layouts (canonical ABI, wasm32): `check` takes one pointer to its
//! parameters (they flatten to more than 16 values) and returns a pointer to
//! a 24-byte `decision`: discriminant `u8` at 0; for deny/escalate the
//! `reason` at 4: message pointer at 4, length at 8, `rule` option
//! discriminant `u8` at 12, its string pointer at 16 and length at 20.
//! `configure(ptr, len)` returns a pointer to a 12-byte
//! `result<_, string>`: discriminant `u8` at 0, error string at 4 and 8.
//! `describe()` returns a pointer to a 32-byte `plugin-info`: name, version,
//! description (pointer, length each) and `tools` (pointer, length).

use serde::Deserialize;

// Only for the type information it embeds (the custom section that tells
// the component linker which world the exports below implement).
wit_bindgen::generate!({ path: "../../../wit", world: "plugin" });

/// What `check` returns (settings key `behave`).
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum Behave {
    #[default]
    Allow,
    Deny,
    BadVariant,
    BadUtf8,
    BadPointer,
    BadLength,
    BadOption,
    BadReturnPointer,
    UnalignedReturn,
}

/// What `configure` returns (settings key `configure`).
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum AtConfigure {
    #[default]
    Ok,
    BadResult,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct Settings {
    behave: Behave,
    configure: AtConfigure,
}

/// A return area: 8 aligned 32-bit words, enough for every result here.
#[repr(C, align(8))]
struct ReturnArea(core::cell::UnsafeCell<[u32; 8]>);

// SAFETY: wasm32-wasip2 components are single-threaded.
unsafe impl Sync for ReturnArea {}

static RETURN_AREA: ReturnArea = ReturnArea(core::cell::UnsafeCell::new([0; 8]));

/// The behaviour `configure` chose, as its discriminant.
static BEHAVE: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

static NAME: &[u8] = b"malformed";
static VERSION: &[u8] = env!("CARGO_PKG_VERSION").as_bytes();
static DESCRIPTION: &[u8] = b"Returns results that break the canonical ABI (test fixture)";
static STAR: &[u8] = b"*";
/// `list<string>` element: pointer and length of `STAR`, filled at run time.
static TOOLS: ReturnArea = ReturnArea(core::cell::UnsafeCell::new([0; 8]));
static MESSAGE: &[u8] = b"a valid deny from hand-written canonical ABI code";
static RULE: &[u8] = b"malformed.valid";
static NOT_UTF8: &[u8] = b"\xff\xfe not UTF-8 \xc3\x28";

fn addr(bytes: &[u8]) -> u32 {
    bytes.as_ptr() as u32
}

/// Writes `words` at the start of the return area and returns its address.
fn ret(words: &[u32]) -> *mut u32 {
    let area = RETURN_AREA.0.get() as *mut u32;
    for (i, w) in words.iter().enumerate() {
        // SAFETY: at most 8 words; single-threaded.
        unsafe { area.add(i).write(*w) };
    }
    area
}

#[unsafe(export_name = "toolvet:check/check@0.1.0#describe")]
extern "C" fn describe() -> *mut u32 {
    let tools = TOOLS.0.get() as *mut u32;
    // SAFETY: two words of an 8-word static; single-threaded.
    unsafe {
        tools.write(addr(STAR));
        tools.add(1).write(STAR.len() as u32);
    }
    ret(&[
        addr(NAME),
        NAME.len() as u32,
        addr(VERSION),
        VERSION.len() as u32,
        addr(DESCRIPTION),
        DESCRIPTION.len() as u32,
        tools as u32,
        1,
    ])
}

#[unsafe(export_name = "toolvet:check/check@0.1.0#configure")]
extern "C" fn configure(ptr: *mut u8, len: usize) -> *mut u32 {
    // SAFETY: the host lowered a string of `len` bytes at `ptr` with our
    // `cabi_realloc`; we take ownership of it.
    let settings = unsafe { String::from_raw_parts(ptr, len, len) };
    match serde_json::from_str::<Settings>(&settings) {
        Ok(s) if s.configure == AtConfigure::BadResult => ret(&[2, 0, 0]),
        Ok(s) => {
            BEHAVE.store(s.behave as u8, core::sync::atomic::Ordering::Relaxed);
            ret(&[0, 0, 0])
        }
        Err(e) => {
            let message: &'static str = format!("malformed settings: {e}").leak();
            ret(&[1, message.as_ptr() as u32, message.len() as u32])
        }
    }
}

#[unsafe(export_name = "toolvet:check/check@0.1.0#check")]
extern "C" fn check(_params: *mut u8) -> *mut u32 {
    const DENY: u32 = 2;
    let behave = match BEHAVE.load(core::sync::atomic::Ordering::Relaxed) {
        b if b == Behave::Deny as u8 => Behave::Deny,
        b if b == Behave::BadVariant as u8 => Behave::BadVariant,
        b if b == Behave::BadUtf8 as u8 => Behave::BadUtf8,
        b if b == Behave::BadPointer as u8 => Behave::BadPointer,
        b if b == Behave::BadLength as u8 => Behave::BadLength,
        b if b == Behave::BadOption as u8 => Behave::BadOption,
        b if b == Behave::BadReturnPointer as u8 => Behave::BadReturnPointer,
        b if b == Behave::UnalignedReturn as u8 => Behave::UnalignedReturn,
        _ => Behave::Allow,
    };
    let valid_deny = [
        DENY,
        addr(MESSAGE),
        MESSAGE.len() as u32,
        1,
        addr(RULE),
        RULE.len() as u32,
    ];
    match behave {
        Behave::Allow => ret(&[0]),
        Behave::Deny => ret(&valid_deny),
        Behave::BadVariant => ret(&[4]),
        Behave::BadUtf8 => ret(&[DENY, addr(NOT_UTF8), NOT_UTF8.len() as u32, 0, 0, 0]),
        Behave::BadPointer => ret(&[DENY, 0xFFFF_0000, 16, 0, 0, 0]),
        Behave::BadLength => ret(&[DENY, addr(MESSAGE), 0x7FFF_0000, 0, 0, 0]),
        Behave::BadOption => ret(&[
            DENY,
            addr(MESSAGE),
            MESSAGE.len() as u32,
            2,
            addr(RULE),
            RULE.len() as u32,
        ]),
        Behave::BadReturnPointer => 0xFFFF_FFF0usize as *mut u32,
        Behave::UnalignedReturn => (ret(&valid_deny) as usize + 1) as *mut u32,
    }
}
