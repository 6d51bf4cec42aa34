;; A core WebAssembly module, not a component, dressed up as a check: it
;; exports functions under the names wit-bindgen gives a check's core module.
;; The host must refuse it at load ("a core module, not a component"), never
;; try to run it.
(module
  (memory (export "memory") 1)
  ;; describe/configure/check return a pointer to their result in memory.
  (func (export "toolvet:check/check@0.1.0#describe") (result i32)
    i32.const 0)
  (func (export "toolvet:check/check@0.1.0#configure") (param i32 i32) (result i32)
    i32.const 0)
  (func (export "toolvet:check/check@0.1.0#check") (param i32) (result i32)
    i32.const 0)
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    i32.const 1024)
)
