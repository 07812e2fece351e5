// Cost of end-to-end signatures per DRONE message: Ed25519 sign at the sender and verify
// at each receiver, against what every message costs anyway (encode at the sender, decode and
// validate at each receiver), on the same machine in the same run. The end-to-end cost in a
// federation: BENCH_SIGNATURES=1 npm run bench:drone.
// Run: npx tsx bench/drone-signing.ts
import { loadavg } from 'node:os';
import { frameOf } from '../shared/bus/codec.ts';
import { droneCodec, type DroneMessage } from '../controller/drone/messages/index.ts';
import { keyringFor } from '../test/drone/support/keys.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20_000);
const codec = droneCodec();
const sender = keyringFor('edge-1', [], false);
const receiver = keyringFor('edge-2', ['edge-1'], true);
const envelope = { v: 1 as const, id: 'edge-1.3f1c2a5e-8d0b-4c55-9a57-0b1d2c3e4f50', sender: 'edge-1', timestamp: 1_763_850_000_000, hops: 0 };

const samples: Array<[string, DroneMessage]> = [
  ['sealed-vote', { ...envelope, kind: 'sealed-vote', to: 'edge-0', app: 'shop', bids: [{ component: 'api', value: 97 }, { component: 'db', value: 97 }] }],
  ['votes (2 components, 4 entries)', {
    ...envelope, kind: 'votes', app: 'shop', baseCluster: 'edge-0', round: 12, winners: { api: 'edge-1', db: 'edge-3' },
    entries: [{ component: 'api', cluster: 'edge-1', value: 97, timestamp: 1_763_850_000_000 }, { component: 'db', cluster: 'edge-1', value: 0, timestamp: 1_763_850_000_001 }, { component: 'db', cluster: 'edge-3', value: 98, timestamp: 1_763_850_000_000 }, { component: 'api', cluster: 'edge-3', value: 0, timestamp: 1_763_850_000_002 }],
  }],
  ['advertisement (2 components)', {
    ...envelope, kind: 'advertisement', type: 'ADD', app: 'shop', baseCluster: 'edge-1', sealed: false,
    components: [{ name: 'api', image: 'registry.example/shop/api:1.4.2', resources: { cpu: 500, memory: 512 } }, { name: 'db', image: 'registry.example/shop/db:15', resources: { cpu: 1000, memory: 2048 }, clustersBlacklist: ['edge-9'] }],
  }],
];

/** CPU time (user + system) per call in µs: on a shared machine, wall time mostly measures the others. */
function perCall(fn: () => void): number {
  for (let i = 0; i < 1000; i += 1) fn();
  const t0 = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i += 1) fn();
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / ROUNDS;
}

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${ROUNDS} rounds each, µs of CPU per message`);
for (const [name, message] of samples) {
  const plain = codec.encode(message);
  const signed = codec.encode(message, (bytes) => sender.sign(bytes));
  const encode = perCall(() => codec.encode(message));
  const encodeSigned = perCall(() => codec.encode(message, (bytes) => sender.sign(bytes)));
  const decode = perCall(() => codec.decode(plain));
  const verify = perCall(() => {
    const frame = frameOf(signed);
    receiver.verify('edge-1', frame?.signed, frame?.sig);
  });
  console.log(`${name.padEnd(32)} ${String(plain.length).padStart(4)} B (+${signed.length - plain.length} signed)  encode ${encode.toFixed(1)}  sign+encode ${encodeSigned.toFixed(1)} (sign ≈ ${(encodeSigned - encode).toFixed(1)})  decode+validate ${decode.toFixed(1)}  verify ${verify.toFixed(1)}  → receiver ×${((decode + verify) / decode).toFixed(1)}`);
}
