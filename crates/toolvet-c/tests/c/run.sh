#!/usr/bin/env bash
# libtoolvet's C test (`make c-tests`): build abi_test.c against the
# installed header and shared library with pkg-config's flags, and run it
# on a scratch copy of the example policy (success and error paths alike).
# Usage: run.sh LIBTOOLVET_DIR (target/libtoolvet, `make libtoolvet`).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
prefix=$(cd "$1" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The program builds as a user's would: flags from pkg-config.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
    "$root/crates/toolvet-c/tests/c/abi_test.c" $(pkg-config --cflags --libs toolvet) -lpthread \
    -o "$scratch/abi_test"

# The example policy, its paths kept: ../target/plugins from examples/.
fresh_policy() {
    local dir=$scratch/$1
    mkdir -p "$dir/examples" "$dir/target"
    cp "$root/examples/toolvet.toml" "$dir/examples/"
    ln -s "$root/target/plugins" "$dir/target/plugins"
    echo "$dir/examples/toolvet.toml"
}

export LD_LIBRARY_PATH="$prefix/lib"
export TOOLVET_CACHE_DIR=${TOOLVET_CACHE_DIR:-$root/target/toolvet-cache}
"$scratch/abi_test" "$(fresh_policy plain)"

# Not yet under valgrind: the engine's instance pool reserves address
# space for 1,000 linear memories of 4 GiB whatever the pool's size
# (toolvet::engine), more than valgrind can map ("mmap failed to reserve").
echo "libtoolvet C test: passed"
