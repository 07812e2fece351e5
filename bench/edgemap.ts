// edgeMap benchmark: 10,000 devices and 200 nodes. Prints graph memory, build time,
// closest-node query p50/p99, snapshot size and time, each beside a baseline measured in the same
// run (a plain Map / a linear scan over a plain array), as a ratio.
//   npm run bench:edgemap      (node --expose-gc --import=tsx bench/edgemap.ts)
import { performance } from 'node:perf_hooks';
import {
  EdgeMap, closestNodeByLocation, haversineKm, restoreEdgeMap, toDot, toSnapshot,
  type DeviceAttributes, type LinkType, type NodeAttributes,
} from '../edgemap/index.ts';

const NODES = 200;
const DEVICES = 10_000;
const LINKS: readonly LinkType[] = ['Ethernet', 'USB', 'Serial', 'Wireless'];

interface Site {
  readonly nodes: Array<[string, NodeAttributes]>;
  readonly devices: Array<[string, DeviceAttributes]>;
}

// A deterministic pseudo-random site: nodes spread over ~100 km in 20 zones, devices near them.
function site(): Site {
  let seed = 42;
  const random = (): number => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed / 2 ** 31; };
  const nodes: Array<[string, NodeAttributes]> = [];
  for (let n = 0; n < NODES; n++) {
    nodes.push([`node-${n}`, { phase: 'Ready', location: { zone: `zone-${n % 20}`, latitude: 52 + random(), longitude: 13 + random() }, free: { cpu: '2', memory: '4Gi' } }]);
  }
  const devices: Array<[string, DeviceAttributes]> = [];
  for (let d = 0; d < DEVICES; d++) {
    devices.push([`plant/device-${d}`, {
      phase: 'Running', nodeName: `node-${d % NODES}`, deviceShifuUrl: `http://device-${d}.deviceshifu.svc:80`, protocol: 'HTTP',
      location: { zone: `zone-${d % 20}`, latitude: 52 + random(), longitude: 13 + random() },
    }]);
  }
  return { nodes, devices };
}

function buildMap(s: Site): EdgeMap {
  const map = new EdgeMap();
  for (const [name, a] of s.nodes) map.upsertNode(name, a);
  for (let n = 1; n < NODES; n++) map.link(`node-${n - 1}`, `node-${n}`, 'Ethernet', { latencyMs: 1 + (n % 5) });
  s.devices.forEach(([key, a], d) => { map.upsertDevice(key, a); map.link(a.nodeName ?? '', key, LINKS[d % 4] ?? 'USB', { latencyMs: 0.5 }); });
  return map;
}

// Baseline: the same data in plain Maps and arrays, no graph, no validation.
function buildPlain(s: Site): { vertices: Map<string, unknown>; links: Array<[string, string, string]> } {
  const vertices = new Map<string, unknown>();
  const links: Array<[string, string, string]> = [];
  for (const [name, a] of s.nodes) vertices.set(name, { kind: 'edgeNode', attributes: structuredClone(a) });
  for (let n = 1; n < NODES; n++) links.push([`node-${n - 1}`, `node-${n}`, 'Ethernet']);
  s.devices.forEach(([key, a], d) => { vertices.set(key, { kind: 'edgeDevice', attributes: structuredClone(a) }); links.push([a.nodeName ?? '', key, LINKS[d % 4] ?? 'USB']); });
  return { vertices, links };
}

// Baseline closest node: a linear scan over a plain array of nodes that all have coordinates and
// a zone (as this site's do), with the same ranking rule: same zone first, then distance, then name.
function closestByScan(nodes: Site['nodes'], at: DeviceAttributes): string | undefined {
  const l = at.location ?? {};
  const here = { latitude: l.latitude ?? 0, longitude: l.longitude ?? 0 };
  let best: [rank: number, km: number, name: string] | undefined;
  for (const [name, a] of nodes) {
    const there = { latitude: a.location?.latitude ?? 0, longitude: a.location?.longitude ?? 0 };
    const candidate: [number, number, string] = [l.zone === a.location?.zone ? 0 : 2, haversineKm(here, there), name];
    if (best === undefined || better(candidate, best)) best = candidate;
  }
  return best?.[2];
}

function better(a: [number, number, string], b: [number, number, string]): boolean {
  return a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function heapMiB<T>(build: () => T): { value: T; mib: number; ms: number } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const start = performance.now();
  const value = build();
  const ms = performance.now() - start;
  gc();
  return { value, mib: (process.memoryUsage().heapUsed - before) / 2 ** 20, ms };
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

function timeEach(count: number, run: (i: number) => unknown): { p50: number; p99: number } {
  for (let i = 0; i < Math.min(count, 500); i++) run(i); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    run(i);
    samples.push(performance.now() - start);
  }
  return percentiles(samples);
}

function timeOnce<T>(run: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

const f = (n: number, digits = 3): string => n.toFixed(digits);
const ratio = (graph: number, base: number): string => `${f(graph / base, 1)}x`;

function main(): void {
  if ((globalThis as { gc?: unknown }).gc === undefined) console.log('note: run with --expose-gc for exact heap figures');
  const s = site();
  buildMap(s); // warm-up: JIT and the validators' compilation outside the measured build
  const plain = heapMiB(() => buildPlain(s));
  const graph = heapMiB(() => buildMap(s));
  const map = graph.value;
  console.log(`edgeMap: ${map.order} vertices (${NODES} nodes, ${DEVICES} devices), ${map.size} links; node ${process.version}`);
  console.log(`build          graph ${f(graph.ms, 1)} ms   plain Map ${f(plain.ms, 1)} ms   ratio ${ratio(graph.ms, plain.ms)}`);
  console.log(`heap           graph ${f(graph.mib, 1)} MiB  plain Map ${f(plain.mib, 1)} MiB  ratio ${ratio(graph.mib, plain.mib)}`);

  const keys = s.devices.map(([key]) => key);
  const byLocation = timeEach(DEVICES, (i) => closestNodeByLocation(map, keys[i % DEVICES] ?? ''));
  const byScan = timeEach(DEVICES, (i) => closestByScan(s.nodes, s.devices[i % DEVICES]?.[1] ?? {}));
  console.log(`closest by location  p50 ${f(byLocation.p50 * 1000, 1)} us  p99 ${f(byLocation.p99 * 1000, 1)} us   linear scan p50 ${f(byScan.p50 * 1000, 1)} us  p99 ${f(byScan.p99 * 1000, 1)} us   ratio p50 ${ratio(byLocation.p50, byScan.p50)}`);
  const agree = s.devices.every(([key, a]) => closestNodeByLocation(map, key)?.node === closestByScan(s.nodes, a));
  console.log(`  graph query and scan agree on all ${DEVICES} devices: ${agree}`);

  const snap = timeOnce(() => JSON.stringify(toSnapshot(map)));
  const plainJson = timeOnce(() => JSON.stringify({ vertices: [...plain.value.vertices], links: plain.value.links }));
  console.log(`snapshot       ${f(Buffer.byteLength(snap.value) / 2 ** 20, 2)} MiB in ${f(snap.ms, 1)} ms   plain JSON.stringify ${f(plainJson.ms, 1)} ms   ratio ${ratio(snap.ms, plainJson.ms)}`);
  const restore = timeOnce(() => restoreEdgeMap(JSON.parse(snap.value)));
  console.log(`restore        ${f(restore.ms, 1)} ms (parse, validate, rebuild)   round-trip equal: ${JSON.stringify(toSnapshot(restore.value)) === snap.value}`);
  const dot = timeOnce(() => toDot(map));
  console.log(`DOT            ${f(Buffer.byteLength(dot.value) / 2 ** 20, 2)} MiB in ${f(dot.ms, 1)} ms`);
  console.log(`process        rss ${f(process.memoryUsage().rss / 2 ** 20, 0)} MiB`);
}

main();
