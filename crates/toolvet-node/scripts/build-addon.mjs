#!/usr/bin/env node
// Build the native addon for this machine into native/: the library as
// native/toolvet.<platform>.node, and the loader (index.js) and TypeScript
// declarations (index.d.ts) that napi-rs generates from the crate.
//
//   node scripts/build-addon.mjs
//
// The library comes from the same cargo invocation as `make unit-tests`
// (`cargo test --release --locked --workspace --no-run`): that build
// compiles this crate anyway (it is a workspace member), so the addon
// shares its wasmtime and adds seconds, not another wasmtime build.
// `napi build` would pass `--target`, whose separate target directory
// rebuilds every dependency. Per-platform release packages are built the
// usual napi way on each platform (see docs/node.md); the files land in
// the same places.

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTypeDef, parseTriple, writeJsBinding } from '@napi-rs/cli';

const crateDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(crateDir, '../..');
const targetDir = resolve(repoRoot, process.env.CARGO_TARGET_DIR ?? 'target');
const outputDir = join(crateDir, 'native');
const pkg = JSON.parse(readFileSync(join(crateDir, 'package.json'), 'utf8'));
const { binaryName, packageName } = pkg.napi;
const crateName = 'toolvet-node';

// napi-derive appends the crate's type definitions to a file here while
// compiling it, and a crate that is already built appends none. So start
// from no file and force a rebuild of this crate (only: seconds), which
// writes them afresh; identical lines (the library and its unit-test
// build both write) are kept once.
const typeDefDir = join(targetDir, 'napi-type-defs');
const typeDefFile = join(typeDefDir, crateName);
mkdirSync(typeDefDir, { recursive: true });
rmSync(typeDefFile, { force: true });
const env = {
  ...process.env,
  NAPI_TYPE_DEF_TMP_FOLDER: typeDefDir,
  [`NAPI_FORCE_BUILD_${crateName.replaceAll('-', '_').toUpperCase()}`]: String(Date.now()),
};

const cargo = process.env.CARGO ?? 'cargo';
const args = ['test', '--release', '--locked', '--workspace', '--no-run', '--message-format=json-render-diagnostics'];
const build = spawnSync(cargo, args, { cwd: repoRoot, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
if (build.status !== 0) {
  console.error(`build-addon: \`${cargo} ${args.join(' ')}\` failed (exit ${build.status ?? build.signal})`);
  process.exit(1);
}
const library = build.stdout
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line))
  .filter((m) => m.reason === 'compiler-artifact' && m.target?.name === crateName.replaceAll('-', '_'))
  .filter((m) => m.target.kind.includes('cdylib') && !m.profile.test)
  .flatMap((m) => m.filenames)
  .find((f) => /\.(so|dylib|dll)$/.test(f));
if (library === undefined) {
  console.error(`build-addon: cargo built no cdylib for ${crateName}`);
  process.exit(1);
}

if (!existsSync(typeDefFile)) {
  console.error(`build-addon: compiling ${crateName} wrote no type definitions to ${typeDefFile}`);
  process.exit(1);
}
const lines = readFileSync(typeDefFile, 'utf8').split('\n').filter((line) => line.trim() !== '');
writeFileSync(typeDefFile, `${[...new Set(lines)].join('\n')}\n`);

const hostTriple = /^host: (.+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1];
if (hostTriple === undefined) {
  console.error('build-addon: `rustc -vV` names no host triple');
  process.exit(1);
}
const { platformArchABI } = parseTriple(hostTriple);
mkdirSync(outputDir, { recursive: true });
const addon = join(outputDir, `${binaryName}.${platformArchABI}.node`);
copyFileSync(library, addon);

const { exports, dts } = await generateTypeDef({
  typeDefDir,
  cwd: crateDir,
  constEnum: pkg.napi.constEnum,
  declareBindingTarget: true,
});
if (exports.length === 0) {
  console.error(`build-addon: no type definitions in ${typeDefDir}`);
  process.exit(1);
}
writeFileSync(join(outputDir, 'index.d.ts'), dts);
await writeJsBinding({
  platform: true,
  idents: exports,
  esm: true,
  binaryName,
  packageName,
  version: pkg.version,
  outputDir,
  jsBinding: 'index.js',
});
console.log(`build-addon: ${addon} (${exports.length} exports)`);
