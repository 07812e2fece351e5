// The control-plane build script: cached builds are reused; a machine without Go is told exactly
// what is missing, and the run fails rather than skipping.
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlaneUnavailable, controlPlaneBinaries } from '../support/controlplane/binaries.ts';

const BUILD = fileURLToPath(new URL('../support/controlplane/build.sh', import.meta.url));

function runBuild(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [BUILD], { env }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

test('a built control plane is reused: the script prints its folder and builds nothing', async (t) => {
  const bin = await controlPlaneBinaries();
  const again = await runBuild(process.env);
  t.is(again.code, 0);
  t.is(again.stdout.trim(), bin);
  t.is(again.stderr, '', 'no build output');
});

test('without Go the build says what is missing and how to get it, and fails', async (t) => {
  const cache = await mkdtemp(join(tmpdir(), 'edgeshifu-empty-cache-'));
  t.teardown(() => rm(cache, { recursive: true, force: true }));
  // no Go on the PATH, none where the test command looks for one, and no proxy to fetch it from
  const env = { ...process.env, EDGESHIFU_CACHE: cache, PATH: '/usr/bin:/bin', EDGESHIFU_GO_DIRS: '', GOPROXY: 'off' };
  const result = await runBuild(env);
  t.is(result.code, 3);
  t.regex(result.stderr, /Go is missing/);
  t.regex(result.stderr, /\/usr\/local\/go/);
  const error = await t.throwsAsync(controlPlaneBinaries(env, () => undefined), { instanceOf: ControlPlaneUnavailable });
  t.is(error.kind, 'toolchain-missing');
  t.regex(error.message, /Go is missing/);
});
