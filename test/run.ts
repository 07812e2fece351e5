// The test command (`npm test`): builds the control plane on first use, starts the run's shared
// cluster, runs ava (TAP reporter) against it, stops it, and ends with the line CI reads:
// `tests: N passed, N failed`. Arguments are passed to ava (`npm test -- test/shared`).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ControlPlaneUnavailable, controlPlaneBinaries } from './support/controlplane/binaries.ts';
import { startCluster, type TestCluster } from './support/controlplane/cluster.ts';
import { SHARED_KUBECONFIG_ENV } from './support/cluster.ts';
import { EXTRA_PATH_DIRS, testPath } from './support/prerequisites/plan.ts';
import { stopAbandonedRealNode } from './support/realnode/node.ts';

interface Counts { passed: number; failed: number; skipped: number; todo: number }

// CI shows only part of a long output: the failed tests' names are repeated just before the last line.
const failedTests: string[] = [];

const SILENCE_LIMIT_MS = 6 * 60_000;

async function runAva(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; counts: Counts }> {
  const child = spawn(process.execPath, ['node_modules/ava/entrypoints/cli.mjs', '--tap', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const fields: Record<string, keyof Counts> = { pass: 'passed', fail: 'failed', skip: 'skipped', todo: 'todo' };
  // A worker that never exits (a leaked handle) would hold the run until CI's own limit: after
  // SILENCE_LIMIT_MS without a result line ava is stopped, and its report names the file.
  let lastOutput = Date.now();
  const watchdog = setInterval(() => {
    if (Date.now() - lastOutput < SILENCE_LIMIT_MS) return;
    console.error(`[test] no test result for ${SILENCE_LIMIT_MS / 60_000} min: stopping ava`);
    child.kill('SIGTERM');
    lastOutput = Date.now();
  }, 10_000);
  for await (const line of createInterface({ input: child.stdout })) {
    lastOutput = Date.now();
    console.log(line);
    if (line.startsWith('not ok ')) failedTests.push(line);
    const match = /^# (pass|fail|skip|todo) (\d+)$/.exec(line);
    const field = match ? fields[match[1] ?? ''] : undefined;
    if (field !== undefined) counts[field] = Number(match?.[2]);
  }
  clearInterval(watchdog);
  const code = await new Promise<number>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (c) => { resolve(c ?? 1); });
  });
  return { code, counts };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  // Debian's daemons (mosquitto) live in sbin, which a user's PATH may lack.
  process.env.PATH = testPath(process.env.PATH ?? '', EXTRA_PATH_DIRS);
  let cluster: TestCluster | undefined;
  const stop = async (): Promise<void> => { await cluster?.stop(); cluster = undefined; };
  process.once('SIGINT', () => { void stop().then(() => process.exit(130)); });
  process.once('SIGTERM', () => { void stop().then(() => process.exit(143)); });
  try {
    const started = Date.now();
    await controlPlaneBinaries();
    cluster = await startCluster({ name: 'edgeshifu-test-shared' });
    console.error(`[test] shared control plane up at ${cluster.server} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    if (!(err instanceof ControlPlaneUnavailable)) throw err;
    console.error(`[test] the Kubernetes tests cannot run: ${err.message}`);
    console.log('tests: 0 passed, 1 failed');
    return 1;
  }
  try {
    // The whole run (no arguments) ends with the real-node tests, one file at a time: a host has
    // one real node. Arguments run what they name alone (`npm run test:realnode` names its config).
    const phases = args.length === 0 ? [[], ['--config', 'ava-realnode.config.mjs']] : [args];
    const counts: Counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
    for (const phase of phases) {
      const run = await runAva(phase, { ...process.env, [SHARED_KUBECONFIG_ENV]: cluster.kubeconfigPath });
      // ava can fail outside any test (uncaught exception, timeout, a file that would not load).
      counts.failed += run.code !== 0 && run.counts.failed === 0 ? 1 : run.counts.failed;
      counts.passed += run.counts.passed;
      counts.skipped += run.counts.skipped;
    }
    const failed = counts.failed;
    // A skipped test hides a gap (a tool that was missing, a case left for later): the run fails.
    if (counts.skipped > 0) console.error(`[test] ${counts.skipped} test(s) skipped: no test may skip, so the run fails`);
    for (const line of failedTests) console.log(`[failed] ${line}`);
    const extra = counts.skipped > 0 ? `, ${counts.skipped} skipped` : '';
    console.log(`tests: ${counts.passed} passed, ${failed} failed${extra}`);
    return failed > 0 || counts.skipped > 0 ? 1 : 0;
  } finally {
    await stop();
    // a real-node test stopped by ava's timeout leaves its node and host changes behind
    if (await stopAbandonedRealNode()) console.error('[test] took down a real node its test left running');
  }
}

process.exitCode = await main();
