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
// relative imports only, so such a check is staged first, in
// `<check>/target/stage-<pid>/` (one per build, removed after): its module
// files (not node_modules/, target/ or tests; symbolic links followed)
// under `check/`, the kit under `toolvet-check/`, and each import of the
// package, found by es-module-lexer, pointed at the kit in place, so a
// stack frame still names the check's own file, line and column.
//
// The contract is the one the entry imports the host from:
// `toolvet:check/host@0.2.0` builds for `toolvet:check@0.2.0`
// (wit/check-0.2/check.wit), `@0.1.0` for 0.1 (wit/check.wit; for a host
// older than 0.2); an entry that imports neither builds for 0.2. An entry
// that exports `resultCheck` is built for the `result-plugin` world (it vets
// tool results; 0.2 only), any other for `plugin`.
//
// ComponentizeJS is driven through its JS API because the `jco componentize`
// CLI mishandles WIT directory paths here. The engine's `http` and
// `fetch-event` features are left out, so a check cannot even import
// outgoing HTTP; stdio (console.* to the host's captured stderr), random and
// clocks stay.
import { componentize } from '@bytecodealliance/componentize-js';
import { init as lexerReady, parse as parseModule } from 'es-module-lexer';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync, mkdirSync, writeFileSync, renameSync, rmSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const KIT = join(HERE, 'toolvet-check');
const WIT = join(REPO, 'wit');
// The WIT directory of each contract the kit builds for.
const CONTRACTS = { '0.1': WIT, '0.2': join(WIT, 'check-0.2') };
const DEFAULT_CONTRACT = '0.2';
const START = process.cwd();

/**
 * The files under `dir` whose names end with one of `exts`, following
 * symbolic links (each directory once, so a link loop ends), and leaving
 * out node_modules/, target/ and package-lock.json.
 */
function files(dir, exts, seen = new Set()) {
  const real = realpathSync(dir);
  if (seen.has(real)) return [];
  seen.add(real);
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    // npm's lock file is no module source (and `npm install` rewrites it).
    if (entry.name === 'node_modules' || entry.name === 'target' || entry.name === 'package-lock.json') continue;
    let kind = entry;
    if (entry.isSymbolicLink()) {
      try {
        kind = statSync(p);
      } catch {
        continue; // a dangling link
      }
    }
    if (kind.isDirectory()) out.push(...files(p, exts, seen));
    else if (kind.isFile() && [].concat(exts).some((ext) => entry.name.endsWith(ext))) out.push(p);
  }
  return out;
}

/** The files a check's modules may import: JavaScript and JSON. */
const MODULE_FILES = ['.js', '.mjs', '.cjs', '.json'];

function sources(checkDir) {
  return [
    ...files(checkDir, MODULE_FILES),
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

const isKit = (specifier) => specifier === 'toolvet-check' || specifier?.startsWith('toolvet-check/');

/** The imports of the module at `path` (es-module-lexer's records). */
function importsOf(path, text) {
  try {
    return parseModule(text, path)[0];
  } catch (e) {
    throw new Error(`${path}: ${e.message}`);
  }
}

/** The check's JavaScript modules, without its tests. */
const modules = (checkDir) =>
  files(checkDir, ['.js', '.mjs', '.cjs']).filter((p) => !/\.test\.[cm]?js$/.test(p));

/** Whether any module of the check imports the kit by its package name. */
function importsKitPackage(checkDir) {
  return modules(checkDir).some((p) => importsOf(p, readFileSync(p, 'utf8')).some((i) => isKit(i.n)));
}

/**
 * `text` with each import of the kit package (`toolvet-check`,
 * `toolvet-check/<file>`) pointed at `kitDir` (relative, `/`-separated),
 * found by parsing the module, so a string or comment that mentions the
 * package is left alone; lines and columns elsewhere do not move.
 */
function pointAtKit(path, text, kitDir) {
  let out = text;
  const found = importsOf(path, text).filter((i) => isKit(i.n));
  for (const i of found.sort((a, b) => b.s - a.s)) {
    const sub = i.n === 'toolvet-check' ? 'index.js' : i.n.slice('toolvet-check/'.length);
    const target = `${kitDir}/${sub}`;
    // A static import's range is the specifier without its quotes; a
    // dynamic import's is the argument, quotes included.
    const replacement = i.d > -1 ? JSON.stringify(target) : target;
    out = out.slice(0, i.s) + replacement + out.slice(i.e);
  }
  return out;
}

/**
 * Stage a check that imports the kit by its package name (above) in
 * `<check>/target/stage-<pid>/`: returns the staging directory and the
 * entry's path inside it. The caller removes the directory.
 */
function stage(checkDir) {
  const root = join(checkDir, 'target', `stage-${process.pid}`);
  rmSync(root, { recursive: true, force: true });
  for (const p of files(KIT, '.js')) {
    const to = join(root, 'toolvet-check', relative(KIT, p));
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, readFileSync(p));
  }
  // Tests are not staged: the component does not import them.
  const sources = files(checkDir, MODULE_FILES).filter((p) => !/\.test\.[cm]?js$/.test(p));
  for (const p of sources) {
    const to = join(root, 'check', relative(checkDir, p));
    const kit = relative(dirname(to), join(root, 'toolvet-check')).split(sep).join('/');
    const text = readFileSync(p, 'utf8');
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, p.endsWith('.json') ? text : pointAtKit(p, text, kit));
  }
  return { cwd: root, entry: 'check/index.js', staged: root };
}

/**
 * The contract and world to build the entry module at `entry` for, from
 * the version of the `toolvet:check` interfaces it imports and whether it
 * exports `resultCheck`.
 */
function target(entry) {
  const text = readFileSync(entry, 'utf8');
  let imports, exports;
  try {
    [imports, exports] = parseModule(text, entry);
  } catch (e) {
    throw new Error(`${entry}: ${e.message}`);
  }
  const versions = new Set(
    imports.map((i) => i.n).filter((n) => n?.startsWith('toolvet:check/')).map((n) => n.split('@')[1] ?? ''),
  );
  const known = { '0.1.0': '0.1', '0.2.0': '0.2' };
  for (const v of versions) {
    if (!(v in known)) {
      throw new Error(`${entry} imports toolvet:check@${v || '(no version)'}: the kit builds for @0.2.0 or @0.1.0`);
    }
  }
  if (versions.size > 1) throw new Error(`${entry} imports toolvet:check at both @0.1.0 and @0.2.0: pick one`);
  const contract = versions.size ? known[[...versions][0]] : DEFAULT_CONTRACT;
  const results = exports.some((e) => e.n === 'resultCheck');
  if (results && contract !== '0.2') {
    throw new Error(`${entry} exports resultCheck, but result checks need contract 0.2: import the host from toolvet:check/host@0.2.0`);
  }
  return { contract, world: results ? 'result-plugin' : 'plugin' };
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
  await lexerReady;
  const { contract, world } = target(entry);
  console.log(`${relative(START, out)}: building for toolvet:check@${contract}.0, world ${world}`);
  const inPlace = inside(checkDir) && !importsKitPackage(checkDir);
  const { cwd, entry: sourcePath, staged } = inPlace ? { cwd: HERE, entry: relative(HERE, entry) } : stage(checkDir);
  process.chdir(cwd);
  let component;
  try {
    ({ component } = await componentize({
      sourcePath,
      witPath: CONTRACTS[contract],
      worldName: world,
      disableFeatures: ['http', 'fetch-event'],
    }));
  } finally {
    process.chdir(START);
    if (staged) rmSync(staged, { recursive: true, force: true });
  }
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
