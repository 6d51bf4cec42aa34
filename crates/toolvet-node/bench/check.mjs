#!/usr/bin/env node
// What a check costs from Node, next to the same check in Rust, in one run:
//
//   node crates/toolvet-node/bench/check.mjs [--config examples/toolvet.toml] [-n 20000]
//
// (from the repository root, after `make node-tests` or `make cli plugins`
// and `npm run build` in crates/toolvet-node). The call is the benchmarks'
// typical one: a coding agent's `bash` call with 1 KB of arguments
// (crates/toolvet-bench `typical_call`). The Rust figure is `toolvet bench`
// on the same policy and call (wall time around `Host::check`); the Node
// figures are wall time around `await host.check(...)` (one call at a
// time), `host.checkSync(...)`, and the throughput of 8 calls in flight.
// The policy's decision log is off in both, as `toolvet bench` does.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Host } from '@toolvet/node';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'examples/toolvet.toml' },
    n: { type: 'string', short: 'n', default: '20000' },
    toolvet: { type: 'string', default: 'target/release/toolvet' },
  },
});
const iterations = Number(values.n);
const policyPath = resolve(values.config);

// The typical 1 KB call.
const words = 'the agent runs the tests of the workspace and reads the tail of the output '.repeat(40);
const base = { command: 'cargo test --workspace 2>&1 | tail -n 50', description: '' };
const pad = 1000 - JSON.stringify(base).length;
const args = { ...base, description: words.slice(0, pad) };
const call = { id: 'call_0001', name: 'bash', arguments: args };
const tool = { description: 'Run a shell command in the workspace' };
const context = { agent: 'coder', runId: 'run-42', principal: 'alice@example.com', attributes: { cwd: '/home/alice/project' } };
const wire = {
  call,
  tool,
  context: { agent: context.agent, run_id: context.runId, principal: context.principal, attributes: context.attributes },
};
const callFile = resolve('target/tmp/node-bench-call.json');
mkdirSync(dirname(callFile), { recursive: true });
writeFileSync(callFile, JSON.stringify(wire));

// Rust: `toolvet bench` on the same policy and call.
const rust = JSON.parse(
  execFileSync(values.toolvet, ['bench', '--config', policyPath, callFile, '-n', String(iterations), '--json'], { encoding: 'utf8' }),
);

// Node: the same policy without its decision log.
const text = readFileSync(policyPath, 'utf8').replace(/^decision_log\s*=.*$/m, '');
const host = await Host.fromToml(text, dirname(policyPath), policyPath);

const percentiles = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
  return { p50: at(50), p99: at(99) };
};
const expectAllow = (verdict) => {
  if (verdict.decision !== 'allow') {
    throw new Error(`the benchmark call is not allowed: ${JSON.stringify(verdict)}`);
  }
};
async function measure(once) {
  for (let i = 0; i < Math.max(10, iterations / 10); i++) {
    expectAllow(await once());
  }
  const wall = [];
  const inHost = [];
  for (let i = 0; i < iterations; i++) {
    const started = process.hrtime.bigint();
    const verdict = await once();
    wall.push(Number(process.hrtime.bigint() - started) / 1000);
    inHost.push(verdict.durationUs);
    expectAllow(verdict);
  }
  return { wall: percentiles(wall), inHost: percentiles(inHost) };
}

const asynchronous = await measure(() => host.check(call, tool, context));
const synchronous = await measure(async () => host.checkSync(call, tool, context));
const inFlight = 8;
const started = process.hrtime.bigint();
let done = 0;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (done < iterations) {
      done += 1;
      expectAllow(await host.check(call, tool, context));
    }
  }),
);
const perSecond = iterations / (Number(process.hrtime.bigint() - started) / 1e9);

const fmt = (us) => `${us.toFixed(1)} µs`;
const signed = (us) => `${us < 0 ? '−' : '+'}${fmt(Math.abs(us))}`;
const rustP50 = rust.verdict.p50_us;
console.log(`policy ${values.config}, ${iterations} calls of bash (1 KB), node ${process.version}`);
console.log('| measured | p50 | p99 | over Rust (p50) |');
console.log('|---|---:|---:|---:|');
console.log(`| Rust, \`toolvet bench\` (\`Host::check\`) | ${fmt(rustP50)} | ${fmt(rust.verdict.p99_us)} | |`);
console.log(`| Node, \`await host.check()\` | ${fmt(asynchronous.wall.p50)} | ${fmt(asynchronous.wall.p99)} | ${signed(asynchronous.wall.p50 - rustP50)} |`);
console.log(`| … of it inside the host (\`verdict.durationUs\`) | ${fmt(asynchronous.inHost.p50)} | ${fmt(asynchronous.inHost.p99)} | |`);
console.log(`| Node, \`host.checkSync()\` | ${fmt(synchronous.wall.p50)} | ${fmt(synchronous.wall.p99)} | ${signed(synchronous.wall.p50 - rustP50)} |`);
console.log(`| Node, ${inFlight} \`check\`s in flight | ${Math.round(perSecond)} calls/s | | Rust, 1 caller: ${Math.round(rust.verdicts_per_second ?? 0)} calls/s |`);
