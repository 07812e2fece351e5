// `edgeshifu up` then `down`, as a user runs them: the local edge stack comes up detached, the
// other commands find it by themselves (its kubeconfig, its controller, its deviceShifus), a device
// answers through its deviceShifu, and `down` stops it leaving no process and no folder behind.
import test from 'ava';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../support/controlplane/ports.ts';
import { killGroup } from '../support/controlplane/process.ts';
import { waitFor } from '../support/wait.ts';
import { readStackState } from '../../cli/local-stack.ts';
import type { StatusReport } from '../../cli/format/status.ts';
import { processTree, stillRunning, type ProcessId } from '../support/process-tree.ts';
import { LOCAL_DEVICES } from '../support/localstack/devices.ts';
import { EMPTY_HOME, edgeshifu, shown } from './run.ts';

test('up brings the local stack up detached, the commands find it, and down leaves nothing behind', async (t) => {
  t.timeout(20 * 60_000);
  // EDGESHIFU_HOME (set by edgeshifu()) is EMPTY_HOME/.edgeshifu: the stack's default folder is local/ there
  const dir = join(EMPTY_HOME, '.edgeshifu', 'local');
  const port = await freePort();
  let seen: ProcessId[] = [];
  t.teardown(async () => {
    // only if the test failed before `down`: nothing it started may outlive it
    for (const p of await stillRunning(seen)) killGroup(p.pid, 'SIGKILL');
  });

  const up = await edgeshifu(['up', '--port', String(port)]);
  t.is(up.code, 0, shown(up));
  t.regex(up.stderr, /starting the control plane/, 'progress is relayed while the stack starts');
  t.regex(up.stdout, new RegExp(`^the local edge stack is up\\n {2}controller and edgeMap: http://127\\.0\\.0\\.1:${String(port)}/edgemap/`));
  t.regex(up.stdout, /^ {2}npx edgeshifu call edgedevice-thermometer read_value/m);
  t.notRegex(up.stdout, /^ {2}edgeshifu /m, 'no command that is not on the PATH');
  t.regex(up.stdout, /stop it with: npx edgeshifu down$/m);
  const state = readStackState(dir);
  t.truthy(state, 'stack.json records the stack');
  seen = await processTree(state?.pid ?? -1);
  t.true(seen.some((p) => p.command.includes('deviceshifu/main.ts')), `the stack's process holds the deviceShifus:\n${seen.map((p) => p.command).join('\n')}`);
  t.true(seen.some((p) => p.command.includes('kube-apiserver')), 'and the control plane');

  const again = await edgeshifu(['up', '--port', String(port)]);
  t.is(again.code, 1, shown(again));
  t.regex(again.stderr, /a local stack already runs from .* \(pid \d+, controller http:\/\/127\.0\.0\.1:\d+\): `npx edgeshifu down` stops it/);

  // no --kubeconfig, no --controller: the stack's own, found from EDGESHIFU_HOME
  const report = await waitFor(`status to show the ${String(LOCAL_DEVICES.length)} devices Running`, async () => {
    const r = await edgeshifu(['status', '-o', 'json']);
    const parsed = JSON.parse(r.stdout || '{}') as Partial<StatusReport>;
    return r.code === 0 && parsed.devices?.length === LOCAL_DEVICES.length && parsed.devices.every((d) => d.phase === 'Running') ? parsed : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1000 });
  t.like(report, { controller: { where: `http://127.0.0.1:${String(port)}`, leading: true }, kubernetes: { kubeconfig: join(dir, 'admin.kubeconfig') } });
  t.deepEqual(report.nodes?.map((n) => [n.name, n.edgeNode]), [['edge-local', true]]);

  const call = await edgeshifu(['call', 'edgedevice-thermometer', 'read_value']);
  t.is(call.code, 0, shown(call));
  t.true(/^\d+$/.test(call.stdout.trim()) && Number(call.stdout) >= 10 && Number(call.stdout) <= 30, call.stdout);
  const map = await edgeshifu(['edgemap']);
  // every device of the stack under its node, in name order
  const rows = LOCAL_DEVICES.map((d) => d.edgeDevice).sort().map((name) => `\n {2}devices/${name}[^\n]*`).join('');
  t.regex(map.stdout, new RegExp(`edge-local {2}Ready[^\n]*${rows}`), shown(map));

  const down = await edgeshifu(['down']);
  t.is(down.code, 0, shown(down));
  t.is(down.stdout, 'stopped; nothing left running.\n');
  t.deepEqual((await stillRunning(seen)).map((p) => `${String(p.pid)} ${p.command}`), [], 'every process of the stack is gone');
  t.false(existsSync(dir), 'its folder is gone');
  const nothing = await edgeshifu(['down']);
  t.is(nothing.code, 0, shown(nothing));
  t.regex(nothing.stdout, /^no local stack started by `edgeshifu up`/);
  const status = await edgeshifu(['status']);
  t.is(status.code, 1, 'with the stack gone there is no kubeconfig to use');
});
