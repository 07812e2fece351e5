// What `edgeshifu up` checks before it empties the stack's folder and starts: never a folder that
// holds something else, never one under a stack that still runs, never a port in use.
import test from 'ava';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { checkCanStart } from '../../cli/stack-process.ts';
import { freePort } from '../support/controlplane/ports.ts';

async function folder(t: { teardown: (f: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-cli-guard-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function listening(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy()).listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

test('a new, empty or earlier stack folder with a free port may be used', async (t) => {
  const dir = await folder(t);
  const port = await freePort();
  await t.notThrowsAsync(checkCanStart(join(dir, 'new'), port));
  await t.notThrowsAsync(checkCanStart(dir, port));
  await mkdir(join(dir, 'logs'));
  await writeFile(join(dir, 'admin.kubeconfig'), `clusters:\n- cluster:\n    server: https://127.0.0.1:${String(await freePort())}\n`);
  await t.notThrowsAsync(checkCanStart(dir, port), 'a stopped stack\'s leftovers');
});

test('a folder holding something else is refused: it would be emptied', async (t) => {
  const dir = await folder(t);
  await writeFile(join(dir, 'thesis.tex'), '');
  await t.throwsAsync(checkCanStart(dir, await freePort()), { message: `${dir} is not empty and is not a local stack's folder: pass --dir with a new or empty folder` });
});

test('a folder under a stack whose API server answers is refused, and so is a port in use', async (t) => {
  const dir = await folder(t);
  const apiPort = await freePort();
  const api = await listening(apiPort);
  t.teardown(async () => { api.close(); await once(api, 'close'); });
  await writeFile(join(dir, 'admin.kubeconfig'), `clusters:\n- cluster:\n    server: https://127.0.0.1:${String(apiPort)}\n`);
  await t.throwsAsync(checkCanStart(dir, await freePort()), { message: new RegExp(`a local stack \\(npm start\\?\\) runs from ${dir}: its API server https://127\\.0\\.0\\.1:${String(apiPort)} answers`) });
  const empty = await folder(t);
  await t.throwsAsync(checkCanStart(empty, apiPort), { message: `port ${String(apiPort)} on 127.0.0.1 is in use (is \`npm start\` running?): stop what uses it, or pass --port` });
});
