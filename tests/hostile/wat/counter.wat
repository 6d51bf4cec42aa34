;; `counter`: the core module of a check that counts in a mutable wasm
;; global and in linear memory. `fixture-tool component` wraps it in a
;; component of the real `toolvet:check/plugin` world (wit/check.wit).
;;
;; `configure` adds 1 to both counters; each `check` adds 1 to both again
;; and denies with the message `global=GG memory=MM` (two digits each, rule
;; `counter.count`). So a fresh instance, made from a snapshot or running
;; `configure` itself, always answers `global=02 memory=02`; a reused one
;; answers 02, 03, 04, ... A mutable global is state a snapshot must carry
;; (the value `configure` left) and a fresh instance must not (the value an
;; earlier call left); Rust checks keep all their state in memory, so this
;; one is written by hand.
;;
;; Canonical ABI layouts (wasm32), as in `malformed/src/lib.rs`:
;; - `describe() -> ptr`: `plugin-info` = name, version, description
;;   (pointer, length each), tools (pointer, length) = 32 bytes;
;; - `configure(ptr, len) -> ptr`: `result<_, string>`, discriminant at 0;
;; - `check(params) -> ptr`: `decision`, discriminant u8 at 0 (2 = deny),
;;   reason message at 4/8, rule option u8 at 12, its string at 16/20.
(module
  (memory (export "memory") 1)

  ;; The call counter kept in a wasm global.
  (global $calls (mut i32) (i32.const 0))
  ;; The bump allocator's next free byte, for `cabi_realloc`.
  (global $heap (mut i32) (i32.const 4096))

  ;; Memory map: 256.. static strings; 384 the `tools` list (one string);
  ;; 400 describe's return area; 448 configure's; 480 check's; 512 the
  ;; message; 1024 the call counter kept in memory; 4096.. the heap.
  (data (i32.const 256) "counter")
  (data (i32.const 272) "0.1.0")
  (data (i32.const 288) "Counts calls in a wasm global and in memory (test fixture)")
  (data (i32.const 352) "*")
  (data (i32.const 360) "counter.count")
  (data (i32.const 384) "\60\01\00\00\01\00\00\00")
  (data (i32.const 512) "global=00 memory=00")

  (func $bump (param $align i32) (param $size i32) (result i32)
    (local $ptr i32) (local $end i32)
    ;; Round the heap pointer up to `align` (a power of two).
    (local.set $ptr
      (i32.and
        (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1)))
        (i32.sub (i32.const 0) (local.get $align))))
    (local.set $end (i32.add (local.get $ptr) (local.get $size)))
    ;; Grow memory when the allocation runs past its end.
    (if (i32.gt_u (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq
              (memory.grow
                (i32.add
                  (i32.shr_u (i32.sub (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
                             (i32.const 16))
                  (i32.const 1)))
              (i32.const -1))
          (then unreachable))))
    (global.set $heap (local.get $end))
    (local.get $ptr))

  ;; Allocations are never freed one by one: `check` resets the heap once
  ;; the host has lowered its parameters and it no longer needs them.
  (func (export "cabi_realloc")
    (param $old i32) (param $old_size i32) (param $align i32) (param $size i32) (result i32)
    (local $new i32)
    (local.set $new (call $bump (local.get $align) (local.get $size)))
    (if (local.get $old)
      (then (memory.copy (local.get $new) (local.get $old) (local.get $old_size))))
    (local.get $new))

  ;; Writes `n` mod 100 as two ASCII digits at `at`.
  (func $digits (param $at i32) (param $n i32)
    (i32.store8 (local.get $at)
      (i32.add (i32.const 48) (i32.rem_u (i32.div_u (local.get $n) (i32.const 10)) (i32.const 10))))
    (i32.store8 (i32.add (local.get $at) (i32.const 1))
      (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10)))))

  (func (export "toolvet:check/check@0.1.0#describe") (result i32)
    (i32.store (i32.const 400) (i32.const 256))
    (i32.store (i32.const 404) (i32.const 7))
    (i32.store (i32.const 408) (i32.const 272))
    (i32.store (i32.const 412) (i32.const 5))
    (i32.store (i32.const 416) (i32.const 288))
    (i32.store (i32.const 420) (i32.const 58))
    (i32.store (i32.const 424) (i32.const 384))
    (i32.store (i32.const 428) (i32.const 1))
    (i32.const 400))

  (func (export "toolvet:check/check@0.1.0#configure") (param i32 i32) (result i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (i32.store (i32.const 1024) (i32.add (i32.load (i32.const 1024)) (i32.const 1)))
    (global.set $heap (i32.const 4096))
    ;; ok
    (i32.store8 (i32.const 448) (i32.const 0))
    (i32.const 448))

  (func (export "toolvet:check/check@0.1.0#check") (param i32) (result i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (i32.store (i32.const 1024) (i32.add (i32.load (i32.const 1024)) (i32.const 1)))
    (global.set $heap (i32.const 4096))
    (call $digits (i32.const 519) (global.get $calls))
    (call $digits (i32.const 529) (i32.load (i32.const 1024)))
    ;; deny(reason { message: "global=GG memory=MM", rule: some("counter.count") })
    (i32.store8 (i32.const 480) (i32.const 2))
    (i32.store (i32.const 484) (i32.const 512))
    (i32.store (i32.const 488) (i32.const 19))
    (i32.store8 (i32.const 492) (i32.const 1))
    (i32.store (i32.const 496) (i32.const 360))
    (i32.store (i32.const 500) (i32.const 13))
    (i32.const 480))
)
