// Validation benchmark: what a check of a valid value costs through the schema interpreter
// (shared/validation.ts, every component) and through TypeBox's compiled check
// (shared/compiled-validator.ts, the bus and the edgeMap), on the values the hot paths see. What
// each costs in memory is measured where it counts, on deviceShifu's working set (bench:deviceshifu).
//   npm run bench:validation [-- --checks 50000]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { VotesMessage } from '../controller/drone/messages/votes.ts';
import { DeviceAttributes } from '../edgemap/model.ts';
import { EdgeDeviceSpec } from '../shared/crds/edgedevice.ts';

const { values } = parseArgs({ options: { checks: { type: 'string', default: '50000' } } });

const votes = {
  v: 1, kind: 'votes', id: 'c1.12345678-aaaa', sender: 'c1', timestamp: 1_700_000_000_000, hops: 0, app: 'app-1', baseCluster: 'c1',
  entries: ['web', 'db', 'cache'].map((component, i) => ({ component, cluster: `c${String(i + 2)}`, value: 20 * (i + 1), timestamp: 1_700_000_000_000 + i })),
  winners: { web: 'c2', db: 'c3', cache: 'c2' }, round: 3, recipients: ['c2', 'c3', 'c4'],
};
const device = { phase: 'Running', nodeName: 'node-1', deviceShifuUrl: 'http://device-1.deviceshifu.svc:80', protocol: 'HTTP', location: { zone: 'zone-1', latitude: 52.1, longitude: 13.2 } };
const spec = { sku: 'thermometer', connection: 'Ethernet', address: 'thermometer.devices.svc:11111', protocol: 'HTTP' };

function perCheck(check: () => unknown, checks: number): number {
  for (let i = 0; i < 2000; i++) check();
  const start = performance.now();
  for (let i = 0; i < checks; i++) check();
  return (performance.now() - start) * 1000 / checks;
}

async function main(): Promise<void> {
  const { Validator } = await import('../shared/validation.ts');
  const { CompiledValidator } = await import('../shared/compiled-validator.ts');
  const checks = Number(values.checks);
  console.log(`validation: ${String(checks)} checks of a valid value each; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log('| value | interpreter, µs | compiled, µs | interpreter × compiled |');
  console.log('|---|---|---|---|');
  for (const [name, schema, value] of [['bus votes message', VotesMessage, votes], ['edgeMap device vertex', DeviceAttributes, device], ['EdgeDevice spec', EdgeDeviceSpec, spec]] as const) {
    const interpreted = new Validator(schema);
    const compiled = new CompiledValidator(schema);
    if (interpreted.errors(value).length > 0 || compiled.errors(value).length > 0) throw new Error(`${name}: the sample is not valid`);
    const slow = perCheck(() => interpreted.errors(value), checks);
    const fast = perCheck(() => compiled.errors(value), checks);
    console.log(`| ${name} | ${slow.toFixed(2)} | ${fast.toFixed(2)} | ${(slow / fast).toFixed(1)} |`);
  }
}

await main();
