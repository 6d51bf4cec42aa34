#!/usr/bin/env bash
# Builds the hostile-plugin corpus into target/hostile/<name>.wasm (at the
# repository root; HOSTILE_OUT overrides it), one file per fixture, and
# checks that each built file has the shape it claims (imports, exports,
# memory minimum, encoding). See README.md for the list and fixtures.md for
# the outcome the host must produce for each.
#
# Usage: tests/hostile/build.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${HOSTILE_OUT:-$root/target/hostile}
wasm_target=wasm32-wasip2
target_dir=$here/target
release=$target_dir/$wasm_target/release
cargo=(cargo --quiet)
start=$SECONDS

if ! rustup target list --installed 2>/dev/null | grep -qx "$wasm_target"; then
    rustup target add "$wasm_target"
fi
mkdir -p "$out"
# Start from no Rust fixture, so a renamed one cannot linger. The Python and
# JavaScript fixtures beside them (built by the kits, each with the
# `.wasm.inputs` stamp the kits keep) stay, so the kits see them up to date.
for built in "$out"/*.wasm; do
    [[ -e $built.inputs ]] || rm -f "$built"
done

build_components() {
    "${cargo[@]}" build --release --locked --target "$wasm_target" \
        --manifest-path "$here/Cargo.toml" --target-dir "$target_dir" "$@"
}

# Components of the `toolvet:check/plugin` world or of a near miss of it.
build_components -p hostile -p malformed -p other-world -p future-contract -p backdoor-import -p patch-version
for crate in hostile malformed other-world future-contract backdoor-import patch-version; do
    cp "$release/${crate//-/_}.wasm" "$out/$crate.wasm"
done

# One build per feature of `variants`: each feature is one fixture.
for feature in describe-loop describe-panic describe-unreachable describe-huge describe-forge no-tools big-static net-probe; do
    build_components -p variants --features "$feature"
    cp "$release/variants.wasm" "$out/$feature.wasm"
done

# One build per feature of `impostor`: checks of another contract.
for feature in swapped-decision host-v9 rc-contract; do
    build_components -p impostor --features "$feature"
    cp "$release/impostor.wasm" "$out/$feature.wasm"
done

# Checks of the 0.2.0 contract: a well-behaved one (calls and results), and
# the same one importing a capability no policy can grant yet.
build_components -p contract-02
cp "$release/contract_02.wasm" "$out/contract-02.wasm"
build_components -p contract-02 --features capability-dns
cp "$release/contract_02.wasm" "$out/capability-dns.wasm"

# Files that are not components of any world.
"${cargo[@]}" build --locked --manifest-path "$here/Cargo.toml" --target-dir "$target_dir" -p fixture-tool
tool=$target_dir/debug/fixture-tool
"$tool" wat "$here/wat/core-module.wat" "$out/core-module.wasm"
"$tool" wat "$here/wat/empty-component.wat" "$out/empty-component.wasm"
# A check of the real world written in text: it counts in a wasm global.
"$tool" component "$here/wat/counter.wat" "$root/wit" plugin "$out/counter.wasm"
# The same check with one table instruction, which the snapshot transform
# refuses: it runs `configure` in every fresh instance instead.
{
    sed '$d' "$here/wat/counter.wat"
    printf '  (table 1 funcref)\n  (func (drop (table.grow (ref.null func) (i32.const 0))))\n)\n'
} >"$target_dir/counter-table.wat"
"$tool" component "$target_dir/counter-table.wat" "$root/wit" plugin "$out/counter-table.wasm"
: >"$out/empty.wasm"
# Not WebAssembly: an ELF-like header followed by text, deterministic.
text=''
for _ in {1..80}; do text+=$'toolvet hostile corpus: these bytes are not WebAssembly.\n'; done
printf '\177ELF\002\001\001\000%s' "${text:0:4088}" >"$out/garbage.wasm"
# A real component cut in half: valid header, then a section that ends early.
size=$(wc -c <"$out/hostile.wasm")
head -c "$((size / 2))" "$out/hostile.wasm" >"$out/truncated.wasm"

# Each fixture has the shape it claims.
expect() { "$tool" expect "$out/$1.wasm" "${@:2}"; }
check=toolvet:check/check@0.1.0
host=toolvet:check/host@0.1.0
expect hostile --component --export "$check" --import "$host" --import wasi:filesystem/ --import wasi:random/random --import wasi:io/poll
expect malformed --component --export "$check"
for variant in describe-loop describe-panic describe-unreachable describe-huge describe-forge no-tools; do
    expect "$variant" --component --export "$check"
done
expect big-static --component --export "$check" --min-memory-mib 256
expect net-probe --component --export "$check" --import wasi:sockets/tcp --import wasi:sockets/udp --import wasi:sockets/ip-name-lookup
expect other-world --component --export toolvet-hostile:other/greeter@0.1.0 --no-export toolvet:check/
expect future-contract --component --export toolvet:check/check@0.3.0 --import toolvet:check/host@0.3.0 --no-export "$check"
expect contract-02 --component --export toolvet:check/check@0.2.0 --export toolvet:check/result-check@0.2.0 --import toolvet:check/host@0.2.0 --no-export "$check"
expect capability-dns --component --export toolvet:check/check@0.2.0 --import toolvet:check/dns@0.2.0
expect backdoor-import --component --export "$check" --import toolvet:evil/backdoor
expect patch-version --component --export toolvet:check/check@0.1.5 --import toolvet:check/host@0.1.5
expect swapped-decision --component --export "$check"
expect host-v9 --component --export "$check" --import toolvet:check/host@9.0.0
expect rc-contract --component --export toolvet:check/check@0.1.0-rc.1 --import toolvet:check/types@0.1.0-rc.1
expect core-module --module
expect counter --component --export "$check"
expect counter-table --component --export "$check"
expect empty-component --component --no-export toolvet:check/
for broken in garbage truncated empty; do
    if "$tool" expect "$out/$broken.wasm" 2>/dev/null; then
        echo "build.sh: $out/$broken.wasm parses as WebAssembly" >&2
        exit 1
    fi
done

count=$(find "$out" -name '*.wasm' | wc -l)
echo "built $count fixtures into $out in $((SECONDS - start)) s:"
(cd "$out" && ls -l -- *.wasm | awk '{ printf "  %-26s %9d bytes\n", $9, $5 }')
