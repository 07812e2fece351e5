// Bad configuration stops the controller at start with one line saying what to fix (exit 2).
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');

function run(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(TSX, ['controller/main.ts', ...args], { env: { ...process.env, KUBECONFIG: '' } }, (error, stdout) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout });
    });
  });
}

/** A well-formed kubeconfig for an API server nobody runs: settings are checked before any call. */
function unusedKubeconfig(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'edgeshifu-startup-')), 'kubeconfig');
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user: { token: 'unused' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  }));
  return path;
}

const CASES: ReadonlyArray<{ args: string[]; says: RegExp }> = [
  { args: ['--kubeconfig', '/nonexistent/kubeconfig'], says: /cannot read kubeconfig \/nonexistent\/kubeconfig: ENOENT/ },
  { args: ['--workers', 'many'], says: /--workers must be a number, got \\"many\\"/ },
  { args: ['--service-type', 'Ingress'], says: /config\.serviceType must be one of/ },
  { args: ['--no-such-flag'], says: /bad command line: .*no-such-flag/ },
  { args: ['--kubeconfig', unusedKubeconfig(), '--device-shifu-tolerations', 'dedicated=plc:Never'], says: /toleration \\"dedicated=plc:Never\\": effect must be NoSchedule, PreferNoSchedule, NoExecute/ },
  { args: ['--kubeconfig', unusedKubeconfig(), '--device-shifu-node-flags=--inspect=0.0.0.0:9229'], says: /device-shifu-node-flags: \\"--inspect\\" runs or loads code, or opens a port/ },
];

for (const { args, says } of CASES) {
  test(`the controller refuses ${args.filter((a, i) => !a.includes(tmpdir()) && args[i + 1]?.includes(tmpdir()) !== true).join(' ')} and says what to fix`, async (t) => {
    const { code, stdout } = await run(args);
    t.is(code, 2);
    const fatal = stdout.trim().split('\n').map((l) => JSON.parse(l) as { level: string; err?: string }).find((l) => l.level === 'fatal');
    t.regex(JSON.stringify(fatal?.err), says);
  });
}
