// `npm start` in a user's hands (issue 9): the local edge stack brought up exactly as `npm start`
// runs it (cli.ts up --foreground, as a child), its devices called through their deviceShifus, the
// edgeMap listing them, then Ctrl-C (SIGINT) and no process of it left behind.
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/controlplane/ports.ts';
import { killGroup } from '../support/controlplane/process.ts';
import { waitFor } from '../support/wait.ts';

/** A process identity that survives pid reuse: pid plus its start time (field 22 of /proc/<pid>/stat). */
interface ProcessId { readonly pid: number; readonly start: string; readonly command: string }

async function stat(pid: number): Promise<{ ppid: number; state: string; start: string } | undefined> {
  const text = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  // the command name may hold spaces: fields start after its closing parenthesis
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: Number(fields[1]), start: fields[19] ?? '' };
}

/** Every live descendant of `root` (by parent links), read from /proc. */
async function descendants(root: number): Promise<ProcessId[]> {
  const children = new Map<number, number[]>();
  const starts = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const s = await stat(pid);
    if (s === undefined) continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
    starts.set(pid, s.start);
  }
  const found: ProcessId[] = [];
  const stack = [...(children.get(root) ?? [])];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    const command = (await readFile(`/proc/${String(pid)}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim();
    found.push({ pid, start: starts.get(pid) ?? '', command });
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

async function stillRunning(processes: readonly ProcessId[]): Promise<ProcessId[]> {
  const alive: ProcessId[] = [];
  for (const p of processes) {
    const s = await stat(p.pid);
    if (s !== undefined && s.start === p.start && s.state !== 'Z') alive.push(p);
  }
  return alive;
}

const CALLS = [
  { device: 'edgedevice-thermometer', instruction: 'read_value', valid: (body: string): boolean => /^\d+$/.test(body) && Number(body) >= 10 && Number(body) <= 30 },
  { device: 'edgedevice-robotarm', instruction: 'get_coordinate', valid: (body: string): boolean => /^xpos: \d+, ypos: \d+, zpos: \d+$/.test(body) },
  { device: 'edgedevice-mqtt', instruction: 'mqtt_data', valid: (body: string): boolean => typeof (JSON.parse(body) as { mqtt_message?: unknown }).mqtt_message === 'string' },
] as const;

test('npm start brings up the local edge stack, serves its devices through deviceShifu, and Ctrl-C leaves no process behind', async (t) => {
  t.timeout(15 * 60_000);
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-localstack-'));
  const port = await freePort();
  const child = spawn(join('node_modules', '.bin', 'tsx'), ['test/support/controlplane/cli.ts', 'up', '--foreground', '--port', String(port), '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let seen: ProcessId[] = [];
  t.teardown(async () => {
    // only if the test failed before the clean stop: nothing it started may outlive it
    for (const p of await stillRunning(seen)) killGroup(p.pid, 'SIGKILL');
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  await waitFor('the stack to print what to try', () => (output.includes('Ctrl-C stops everything.') ? true : undefined), {
    timeoutMs: 14 * 60_000, intervalMs: 500, abortIf: () => (child.exitCode === null ? undefined : `npm start exited:\n${output}`),
  });
  seen = await descendants(child.pid ?? -1);
  t.true(seen.some((p) => p.command.includes('deviceshifu/main.ts')), `deviceShifu processes run under npm start:\n${seen.map((p) => p.command).join('\n')}`);
  t.true(seen.some((p) => p.command.includes('shifud/main.ts')), 'shifud runs for edge-local');
  t.regex(output, new RegExp(`edgeMap: http://127\\.0\\.0\\.1:${String(port)}/edgemap/`));

  for (const call of CALLS) {
    const line = new RegExp(`curl (http://127\\.0\\.0\\.1:\\d+)/${call.instruction} +# ${call.device} `).exec(output);
    t.truthy(line, `a curl line for ${call.device} is printed`);
    const reply = await fetch(`${line?.[1] ?? ''}/${call.instruction}`);
    const body = await reply.text();
    t.is(reply.status, 200, `${call.device}/${call.instruction}: ${body}`);
    t.true(call.valid(body.trim()), `${call.device}/${call.instruction} answered ${body}`);
  }

  const edgeMap = await waitFor('the edgeMap to show the thermometer Running on edge-local', async () => {
    const map = await (await fetch(`http://127.0.0.1:${String(port)}/edgemap`)).json() as { vertices: Array<{ key: string; kind: string; attributes: { phase?: string; nodeName?: string } }> };
    const thermometer = map.vertices.find((v) => v.key === 'devices/edgedevice-thermometer');
    return thermometer?.attributes.phase === 'Running' ? map : undefined;
  }, { timeoutMs: 60_000 });
  t.deepEqual(edgeMap.vertices.filter((v) => v.kind === 'edgeDevice').map((v) => [v.key, v.attributes.nodeName]).sort(), [
    ['devices/edgedevice-mqtt', 'edge-local'], ['devices/edgedevice-robotarm', 'edge-local'], ['devices/edgedevice-thermometer', 'edge-local'],
  ]);

  child.kill('SIGINT');
  const [code] = await exited;
  t.is(code, 0, output);
  t.true(output.includes('stopped; nothing left running.'));
  t.deepEqual((await stillRunning(seen)).map((p) => `${String(p.pid)} ${p.command}`), [], 'every process npm start started is gone');
});
