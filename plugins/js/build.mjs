#!/usr/bin/env node
// Build JavaScript checks into toolvet components with ComponentizeJS.
//
//   node plugins/js/build.mjs [--out-dir DIR] [--force] plugins/js/message-guard [more check dirs]
//
// A check directory `<name>/` has the component's entry module `index.js`
// (which imports the host's `log` and exports `check = exportCheck(...)`)
// and the modules it imports; the component is written to
// `<out-dir>/<name with - as _>.wasm` (default `target/plugins/`).
//
// A component is rebuilt unless the stamp beside it (`<name>.wasm.inputs`)
// records the same inputs and the component itself is unchanged: the
// sha256 of the check directory's path and of every input's path and bytes
// (the check directory's `.js` files, the kit (`toolvet-check/`), the WIT
// files, this script and package-lock.json), and the sha256 of the
// component. Contents, not file times: a checkout, a copy or another check
// (of any language) writing the same output name all rebuild. `--force`
// rebuilds regardless.
//
// package.json pins @bytecodealliance/preview2-shim itself: componentize-js
// 0.23.0 imports it at run time but lists it only as a devDependency, so
// `npm ci` would otherwise leave it out.
//
// A check outside this directory (e.g. one `toolvet new --lang js` made)
// imports the kit as the package `toolvet-check`. ComponentizeJS resolves
// relative imports only, so such a check is staged first: its `.js` files
// (not node_modules/, target/ or tests) under `<check>/target/stage/check/`, the
// kit under `<check>/target/stage/toolvet-check/`, and each import of
// `toolvet-check` rewritten on its own line to the kit's relative path, so
// a stack frame still names the check's own file and line.
//
// ComponentizeJS is driven through its JS API because the `jco componentize`
// CLI mishandles WIT directory paths here. The engine's `http` and
// `fetch-event` features are left out, so a check cannot even import
// outgoing HTTP; stdio (console.* to the host's captured stderr), random and
// clocks stay.
import { componentize } from '@bytecodealliance/componentize-js';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync, mkdirSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const KIT = join(HERE, 'toolvet-check');
const WIT = join(REPO, 'wit');
const WORLD = 'plugin';
const START = process.cwd();

function files(dir, ext) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    const skipped = entry.name === 'node_modules' || entry.name === 'target';
    if (entry.isDirectory() && !skipped) out.push(...files(p, ext));
    else if (entry.isFile() && entry.name.endsWith(ext)) out.push(p);
  }
  return out;
}

function sources(checkDir) {
  return [
    ...files(checkDir, '.js'),
    ...files(KIT, '.js'),
    ...files(WIT, '.wit'),
    fileURLToPath(import.meta.url),
    join(HERE, 'package-lock.json'),
  ];
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** sha256 of the check directory's path and of every input's path and bytes. */
function inputsDigest(checkDir) {
  const h = createHash('sha256').update('toolvet build.mjs inputs v1\0').update(`${checkDir}\0`);
  for (const p of [...new Set(sources(checkDir))].sort()) {
    h.update(`${p}\0`).update(createHash('sha256').update(readFileSync(p)).digest());
  }
  return h.digest('hex');
}

/** Whether `out` was built from `inputs` and is unchanged since. */
function upToDate(out, inputs) {
  const stamp = `${out}.inputs`;
  if (!existsSync(out) || !existsSync(stamp)) return false;
  const recorded = readFileSync(stamp, 'utf8').split(/\s+/).filter(Boolean);
  return recorded.join(' ') === `inputs ${inputs} output ${sha256(readFileSync(out))}`;
}

/** Whether `dir` is inside this directory (the repository's own checks). */
const inside = (dir) => dir === HERE || dir.startsWith(HERE + sep);

// An import of the kit by its package name, in a static `from '…'` or a
// dynamic `import('…')`.
const KIT_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*)(['"])toolvet-check\2/g;

/**
 * Stage a check from outside this directory (above): returns the staging
 * directory and the entry's path inside it.
 */
function stage(checkDir) {
  const root = join(checkDir, 'target', 'stage');
  rmSync(root, { recursive: true, force: true });
  for (const p of files(KIT, '.js')) {
    const to = join(root, 'toolvet-check', relative(KIT, p));
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, readFileSync(p));
  }
  // Tests are not staged: the component does not import them, and `node
  // --test` in the check's directory would find them twice.
  for (const p of files(checkDir, '.js').filter((p) => !p.endsWith('.test.js'))) {
    const to = join(root, 'check', relative(checkDir, p));
    const kit = relative(dirname(to), join(root, 'toolvet-check', 'index.js')).split(sep).join('/');
    const text = readFileSync(p, 'utf8').replace(KIT_IMPORT, (_, lead, quote) => `${lead}${quote}${kit}${quote}`);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
  }
  return { cwd: root, entry: 'check/index.js' };
}

async function build(checkDir, outDir, force) {
  const entry = join(checkDir, 'index.js');
  if (!existsSync(entry)) throw new Error(`${checkDir} has no entry module index.js`);
  const out = join(outDir, `${basename(checkDir).replaceAll('-', '_')}.wasm`);
  const inputs = inputsDigest(checkDir);
  if (!force && upToDate(out, inputs)) {
    console.log(`${relative(START, out)}: up to date`);
    return;
  }
  // ComponentizeJS maps the current directory into the engine while it
  // pre-initialises, so relative imports (`../toolvet-check/index.js`)
  // resolve; run from the plugins/js directory so the whole kit is inside,
  // or from the staging directory of a check from elsewhere.
  const { cwd, entry: sourcePath } = inside(checkDir) ? { cwd: HERE, entry: relative(HERE, entry) } : stage(checkDir);
  process.chdir(cwd);
  const { component } = await componentize({
    sourcePath,
    witPath: WIT,
    worldName: WORLD,
    disableFeatures: ['http', 'fetch-event'],
  });
  mkdirSync(outDir, { recursive: true });
  // Write next to the output and rename, so an interrupted build never
  // leaves a truncated component that looks up to date.
  const tmp = join(outDir, `.${basename(out)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, component);
    rmSync(`${out}.inputs`, { force: true });
    renameSync(tmp, out);
    writeFileSync(`${out}.inputs`, `inputs ${inputs}\noutput ${sha256(component)}\n`);
  } finally {
    rmSync(tmp, { force: true });
  }
  console.log(`${relative(START, out)}: built (${(component.length / 1e6).toFixed(1)} MB)`);
}

const args = process.argv.slice(2);
let outDir = join(REPO, 'target', 'plugins');
let force = false;
const dirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--out-dir') outDir = resolve(args[++i]);
  else if (args[i] === '--force') force = true;
  else dirs.push(resolve(args[i]));
}
if (!dirs.length) {
  console.error('usage: node plugins/js/build.mjs [--out-dir DIR] [--force] CHECK_DIR...');
  process.exit(2);
}
const cwd = process.cwd();
for (const dir of dirs) {
  try {
    await build(dir, outDir, force);
  } catch (e) {
    console.error(`build.mjs: ${relative(cwd, dir) || dir}: ${e.message ?? e}`);
    process.exit(1);
  } finally {
    process.chdir(cwd);
  }
}
