// `edgeshifu` fails the way a user can act on: a bad command line exits 2 with what to fix and
// where the help is; an API server or controller that does not answer exits 1 saying which one,
// where its address came from, and what to do. Each run is the bin as its own process.
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../support/controlplane/ports.ts';
import { cliEnv, EMPTY_HOME, edgeshifu, shown } from './run.ts';

const usage: readonly [string[], RegExp][] = [
  [[], /^edgeshifu: no command given\n\nedgeshifu: the local edge stack/],
  [['stauts'], /^edgeshifu: unknown command "stauts"/],
  [['device'], /^edgeshifu: device needs a command: add, list, rm/],
  [['call', 'thermo'], /^edgeshifu: missing <instruction>\n\(see `edgeshifu call --help`\)\n$/],
  [['device', 'add', 'thermo', '--protocol', 'HTTP'], /give at least one --instruction/],
  [['device', 'add', 'Thermo', '--protocol', 'HTTP', '-i', 'read_value'], /EdgeDevice name "Thermo" cannot name its deviceShifu Service/],
  [['device', 'add', 'thermo', '--protocol', 'Zigbee', '-i', 'read_value'], /--protocol Zigbee is not one of HTTP/],
  [['status', '--output', 'yaml'], /--output yaml is not offered here: use text, json/],
  [['edgemap', '--controller', '127.0.0.1:8080'], /--controller must be an http:\/\/ or https:\/\/ address, got "127.0.0.1:8080"/],
  [['call', 'thermo', 'read_value', '--param', 'celsius'], /--param celsius: write it as key=value/],
  [['up', '--port', 'http'], /--port must be a whole number of at least 1, got "http"/],
  [['up', '--clusters', '3'], /--clusters must be 1 or 2, got 3/],
];

for (const [args, message] of usage) {
  test(`edgeshifu ${args.join(' ') || '(nothing)'} is a usage error: exit 2`, async (t) => {
    const result = await edgeshifu(args);
    t.is(result.code, 2, shown(result));
    t.regex(result.stderr, message);
    t.is(result.stdout, '');
  });
}

test('--help of every command and group exits 0 with its usage on stdout', async (t) => {
  for (const args of [['--help'], ['up', '-h'], ['down', '--help'], ['status', '--help'], ['device', '--help'], ['device', 'add', '--help'], ['device', 'list', '--help'], ['device', 'rm', '--help'], ['edgemap', '--help'], ['call', '--help'], ['help', 'call']]) {
    const result = await edgeshifu(args);
    t.is(result.code, 0, `${args.join(' ')}: ${shown(result)}`);
    t.regex(result.stdout, /usage: edgeshifu /, args.join(' '));
    t.is(result.stderr, '', args.join(' '));
  }
});

test('npx edgeshifu runs the package\'s bin', async (t) => {
  const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile('npx', ['--no-install', 'edgeshifu', 'call', '--help'], { env: cliEnv() }, (error, stdout) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout });
    });
  });
  t.is(result.code, 0);
  t.regex(result.stdout, /^call an instruction of a device through its deviceShifu/);
});

test('without any kubeconfig the CLI says where it looked and how to get one', async (t) => {
  // an empty HOME: no ~/.kube/config of this machine either
  const result = await edgeshifu(['device', 'list'], { HOME: EMPTY_HOME });
  t.is(result.code, 1, shown(result));
  t.is(result.stderr, 'edgeshifu: no kubeconfig found: start the local stack with `edgeshifu up`, set KUBECONFIG, or pass --kubeconfig <file>\n');
  const missing = await edgeshifu(['status', '--kubeconfig', '/nonexistent/config']);
  t.is(missing.code, 1, shown(missing));
  t.regex(missing.stderr, /cannot read kubeconfig \/nonexistent\/config: ENOENT.* \(from --kubeconfig\): pass --kubeconfig with a readable kubeconfig/);
});

test('an API server that does not answer exits 1, naming it, the kubeconfig and what to do', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-cli-unreachable-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const port = await freePort();
  const kubeconfig = join(dir, 'config');
  await writeFile(kubeconfig, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'gone',
    clusters: [{ name: 'gone', cluster: { server: `https://127.0.0.1:${String(port)}`, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'gone', user: { token: 'not-a-real-token' } }],
    contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'gone' } }],
  }));
  const list = await edgeshifu(['device', 'list'], { KUBECONFIG: kubeconfig });
  t.is(list.code, 1, shown(list));
  t.is(list.stderr, `edgeshifu: cannot list EdgeDevices: the Kubernetes API server at https://127.0.0.1:${String(port)} (kubeconfig ${kubeconfig}, from $KUBECONFIG) does not answer (connect ECONNREFUSED 127.0.0.1:${String(port)}). Is the cluster up? Start the local stack with \`edgeshifu up\`, or pass --kubeconfig.\n`);
  t.false(list.stderr.includes('not-a-real-token'), 'no credential in the message');

  const status = await edgeshifu(['status', '--controller', `http://127.0.0.1:${String(port)}`], { KUBECONFIG: kubeconfig });
  t.is(status.code, 1, shown(status));
  t.regex(status.stdout, /kubernetes {2}https:\/\/127\.0\.0\.1:\d+ {2}UNREACHABLE/);
  t.regex(status.stdout, /controller {2}http:\/\/127\.0\.0\.1:\d+ {2}UNREACHABLE: the controller at .* does not answer: connect ECONNREFUSED/);
  t.regex(status.stdout, /PROBLEMS\n- cannot read the API server version: the Kubernetes API server at .* does not answer/);
  const json = await edgeshifu(['status', '-o', 'json', '--controller', `http://127.0.0.1:${String(port)}`], { KUBECONFIG: kubeconfig });
  t.is(json.code, 1);
  t.like(JSON.parse(json.stdout), { kubernetes: { reachable: false }, controller: { reachable: false } });
});

test('a controller that does not answer exits 1, saying where its address came from', async (t) => {
  const port = await freePort();
  const result = await edgeshifu(['edgemap'], { EDGESHIFU_CONTROLLER: `http://127.0.0.1:${String(port)}` });
  t.is(result.code, 1, shown(result));
  t.is(result.stderr, `edgeshifu: the controller at http://127.0.0.1:${String(port)} (from $EDGESHIFU_CONTROLLER) does not answer: connect ECONNREFUSED 127.0.0.1:${String(port)}. Is it running? Pass --controller with its address.\n`);
});

test('the CLI also runs from its bundle (npm run build:cli), and `up` there says it needs the source tree', async (t) => {
  const run = (command: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> => new Promise((resolve) => {
    execFile(command, args, { env: cliEnv(), maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
  const built = await run('npm', ['run', '--silent', 'build:cli']);
  t.is(built.code, 0, built.stderr);
  const help = await run(process.execPath, ['dist/cli/cli.js', 'device', 'add', '--help']);
  t.is(help.code, 0, help.stderr);
  t.regex(help.stdout, /usage: edgeshifu device add/);
  const up = await run(process.execPath, ['dist/cli/cli.js', 'up']);
  t.is(up.code, 1, up.stderr);
  t.regex(up.stderr, /edgeshifu up runs the local stack from a source checkout after `npm ci`: test\/support\/localstack\/stack.ts is missing/);
});
