// The test command's first step: which Debian packages it installs, or the command it asks a
// user without root to run, and the PATH its tests get.
import test from 'ava';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REQUIREMENTS, describeMissing, planPrerequisites, testPath } from '../support/prerequisites/plan.ts';
import { missingRequirements } from '../support/prerequisites/install.ts';
import { firstProxy, pathWithGo } from '../support/prerequisites/go.ts';

const mosquitto = REQUIREMENTS.find((r) => r.command === 'mosquitto')!;
const passwd = REQUIREMENTS.find((r) => r.command === 'mosquitto_passwd')!;
const dot = REQUIREMENTS.find((r) => r.command === 'dot')!;

test('with nothing missing there is nothing to do', (t) => {
  t.deepEqual(planPrerequisites([], false), { kind: 'ready' });
  t.deepEqual(planPrerequisites([], true), { kind: 'ready' });
});

test('as root the missing packages are installed, each named once and sorted', (t) => {
  const plan = planPrerequisites([mosquitto, dot, passwd, mosquitto], true);
  t.is(plan.kind, 'install');
  if (plan.kind !== 'install') return;
  t.deepEqual(plan.packages, ['graphviz', 'mosquitto', 'mosquitto-clients']);
});

test('without root the run stops with the one command that installs them', (t) => {
  const plan = planPrerequisites([dot, mosquitto], false);
  t.is(plan.kind, 'ask');
  if (plan.kind !== 'ask') return;
  t.is(plan.command, 'sudo apt-get update && sudo apt-get install -y --no-install-recommends graphviz mosquitto');
  t.deepEqual(describeMissing(plan.missing), [`  graphviz (dot): ${dot.why}`, `  mosquitto (mosquitto): ${mosquitto.why}`]);
});

test('the tests see sbin, where Debian puts mosquitto, after the PATH they were given', (t) => {
  t.is(testPath('/usr/bin:/bin', ['/usr/sbin', '/sbin']), '/usr/bin:/bin:/usr/sbin:/sbin');
  t.is(testPath('/usr/sbin:/usr/bin', ['/usr/sbin', '/sbin']), '/usr/sbin:/usr/bin:/sbin');
  t.is(testPath('', ['/usr/sbin']), '/usr/sbin');
});

test('a command counts as present only where an executable file of that name is on the PATH', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'prereq-'));
  await writeFile(join(dir, 'dot'), '#!/bin/sh\n');
  await chmod(join(dir, 'dot'), 0o755);
  await writeFile(join(dir, 'mosquitto'), 'not executable');
  const missing = missingRequirements(dir, [dot, mosquitto]).map((r) => r.command);
  t.deepEqual(missing, ['mosquitto']);
  // a file the real node uses (a library, a plugin) is looked for where it is, not on the PATH
  const lib = { command: join(dir, 'mosquitto'), debianPackage: 'x', why: 'y' };
  const gone = { command: join(dir, 'libc.a'), debianPackage: 'libc6-dev', why: 'y' };
  t.deepEqual(missingRequirements('', [lib, gone]).map((r) => r.debianPackage), ['libc6-dev']);
});

test('the Go toolchain comes from the first proxy in GOPROXY, never from "direct" or "off"', (t) => {
  t.is(firstProxy('https://proxy.example/,direct'), 'https://proxy.example');
  t.is(firstProxy('direct|https://mirror.example/go'), 'https://mirror.example/go');
  t.is(firstProxy('off'), undefined);
  t.is(firstProxy(undefined), undefined);
});

test('a Go toolchain outside the PATH is found where the test command looks, and put first on the PATH', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'prereq-go-'));
  await writeFile(join(dir, 'go'), '#!/bin/sh\n');
  await chmod(join(dir, 'go'), 0o755);
  t.is(await pathWithGo('/nowhere', { EDGESHIFU_GO_DIRS: `/missing:${dir}` }), `${dir}:/nowhere`);
  t.is(await pathWithGo(dir, { EDGESHIFU_GO_DIRS: '' }), dir, 'a Go on the PATH is used as it is');
  t.is(await pathWithGo('/nowhere', { EDGESHIFU_GO_DIRS: '', GOPROXY: 'off' }), '/nowhere', 'nothing to fetch from: build.sh says what to install');
});
