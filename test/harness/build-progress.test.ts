// Progress of the first build: one line per phase with the elapsed time and an estimate scaled by
// the measured pace; the build script's other output (Go's) in a log file whose path is printed,
// shown whole when the build fails. The scripts here are stand-ins written by the test (no Go).
import test from 'ava';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuildProgress, formatDuration, parseMarker } from '../support/build-progress.ts';
import { runBuildScript } from '../support/build-script.ts';

const TYPICAL = { download: 100, a: 200, b: 100 };

test('markers are told apart from Go\'s output', (t) => {
  t.deepEqual(parseMarker('::plan download a b'), { kind: 'plan', phases: ['download', 'a', 'b'] });
  t.deepEqual(parseMarker('::plan'), { kind: 'plan', phases: [] });
  t.deepEqual(parseMarker('::phase kube-apiserver'), { kind: 'phase', phase: 'kube-apiserver' });
  t.is(parseMarker('go: downloading k8s.io/api v0.36.3'), undefined);
  t.is(parseMarker('  ::phase indented'), undefined);
  t.is(formatDuration(8_000), '8s');
  t.is(formatDuration(75_000), '1m15s');
});

test('one line per phase: its step, the previous phase\'s time, the elapsed time and what is left', (t) => {
  const p = new BuildProgress('controlplane', 0, TYPICAL);
  t.is(p.line('::plan download a b', 0), '[controlplane] 3 steps to build: download, a, b (about 7 min on 2 cores)');
  t.is(p.line('go: downloading x', 1_000), undefined, 'Go\'s lines print nothing');
  t.is(p.line('::phase download', 0), '[controlplane] 1/3 download: 0s elapsed, about 7 min left');
  // download took twice its typical time: the rest is expected at the same pace
  t.is(p.line('::phase a', 200_000), '[controlplane] 2/3 a: download took 3m20s; 3m20s elapsed, about 10 min left');
  t.is(p.pace(), 2);
  t.is(p.remainingMs(200_000), (200 + 100) * 2 * 1000);
  t.is(p.remainingMs(300_000), (200 * 2 - 100 + 100 * 2) * 1000, 'the current phase counts down');
  t.is(p.remainingMs(900_000), 100 * 2 * 1000, 'a phase past its estimate leaves only the later ones');
  t.is(p.line('::phase b', 400_000), '[controlplane] 3/3 b: a took 3m20s; 6m40s elapsed, about 2 min left');
  t.is(p.pace(), 400 / 300);
  t.is(p.finish(460_000), '[controlplane] built in 7m40s');
});

test('a phase the plan did not name is added to it; an unknown phase gets a default estimate', (t) => {
  const p = new BuildProgress('realnode', 0, TYPICAL);
  p.line('::plan a', 0);
  p.line('::phase a', 0);
  t.is(p.line('::phase extra', 200_000), '[realnode] 2/2 extra: a took 3m20s; 3m20s elapsed, about 1 min left');
});

async function script(t: import('ava').ExecutionContext, body: string): Promise<{ path: string; cache: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-build-progress-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'build.sh');
  await writeFile(path, `set -e\n${body}\n`);
  await chmod(path, 0o755);
  return { path, cache: join(dir, 'cache') };
}

test('a build prints its phases and the log path; Go\'s lines go to the log only', async (t) => {
  const { path, cache } = await script(t, [
    'echo "::plan download a" >&2', 'echo "::phase download" >&2', 'echo "go: downloading k8s.io/api v0.36.3" >&2',
    'echo "::phase a" >&2', 'printf "partial line without newline" >&2', 'echo /the/bin/dir',
  ].join('\n'));
  let clock = 0;
  const printed: string[] = [];
  const result = await runBuildScript({ label: 'controlplane', script: path, env: { ...process.env, EDGESHIFU_CACHE: cache }, progress: (s) => printed.push(s), now: () => (clock += 1000) });
  t.is(result.code, 0);
  t.is(result.output, '/the/bin/dir');
  const text = printed.join('');
  t.true(result.logPath?.startsWith(join(cache, 'logs', 'controlplane-')), result.logPath);
  t.regex(text, new RegExp(`Go's output go to ${result.logPath ?? '?'}`));
  t.regex(text, /\[controlplane\] 2 steps to build: download, a/);
  t.regex(text, /\[controlplane\] 1\/2 download: /);
  t.regex(text, /\[controlplane\] 2\/2 a: download took \ds; /);
  t.regex(text, /\[controlplane\] built in \d+s \(log: /);
  t.notRegex(text, /go: downloading/, 'Go\'s output is not on the terminal');
  t.is(await readFile(result.logPath ?? '', 'utf8'), 'go: downloading k8s.io/api v0.36.3\npartial line without newline\n');
});

test('a failed build shows its whole log; a cached one prints nothing and makes no log', async (t) => {
  const lines = Array.from({ length: 40 }, (_, i) => `echo "compile error line ${i}" >&2`);
  const { path, cache } = await script(t, ['echo "::plan a" >&2', 'echo "::phase a" >&2', ...lines, 'exit 1'].join('\n'));
  const printed: string[] = [];
  const failed = await runBuildScript({ label: 'realnode', script: path, env: { ...process.env, EDGESHIFU_CACHE: cache }, progress: (s) => printed.push(s) });
  t.is(failed.code, 1);
  const text = printed.join('');
  t.regex(text, /\[realnode\] the build failed \(exit 1\); its whole log, .*realnode-.*\.log:\n/);
  for (let i = 0; i < 40; i++) t.true(text.includes(`compile error line ${i}\n`), `line ${i} is shown`);
  t.notRegex(text, /built in/);

  const cached = await script(t, 'echo /cached/bin');
  const quiet: string[] = [];
  const hit = await runBuildScript({ label: 'realnode', script: cached.path, env: { ...process.env, EDGESHIFU_CACHE: cached.cache }, progress: (s) => quiet.push(s) });
  t.is(hit.output, '/cached/bin');
  t.deepEqual(quiet, []);
  t.is(hit.logPath, undefined);
});
