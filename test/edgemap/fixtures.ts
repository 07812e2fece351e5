// Small edgeMaps the tests share: a two-line plant with a partitioned annex and a peer cluster.
import { EdgeMap } from '../../edgemap/index.ts';

/**
 *   line-a (zone a, 52.52,13.40) --Ethernet 2ms-- line-b (zone b, 52.53,13.41)
 *     |USB 0.5ms      |Ethernet (unmeasured)           |Wireless 8ms
 *   plant/thermo    plant/agv --Serial 1ms-- plant/arm
 *   annex (zone c, no coordinates) --Ethernet-- annex/press       cluster munich --Federation-- line-b
 */
export function plant(): EdgeMap {
  const map = new EdgeMap();
  map.upsertNode('line-a', { phase: 'Ready', location: { zone: 'a', latitude: 52.52, longitude: 13.40 } });
  map.upsertNode('line-b', { phase: 'Ready', location: { zone: 'b', latitude: 52.53, longitude: 13.41 } });
  map.upsertNode('annex', { phase: 'NotReady', location: { zone: 'c' } });
  map.upsertDevice('plant/thermo', { phase: 'Running', nodeName: 'line-a', deviceShifuUrl: 'http://thermo.deviceshifu.svc', location: { zone: 'a' } });
  map.upsertDevice('plant/agv', { phase: 'Pending', nodeName: 'line-a' });
  map.upsertDevice('plant/arm', { phase: 'Running', nodeName: 'line-b', location: { latitude: 52.531, longitude: 13.411 } });
  map.upsertDevice('annex/press', { phase: 'Failed', nodeName: 'annex' });
  map.upsertCluster('munich', { phase: 'Peered', location: { latitude: 48.14, longitude: 11.58 } });
  map.link('line-a', 'line-b', 'Ethernet', { latencyMs: 2, bandwidthMbps: 1000 });
  map.link('line-a', 'plant/thermo', 'USB', { latencyMs: 0.5 });
  map.link('line-a', 'plant/agv', 'Ethernet');
  map.link('plant/agv', 'plant/arm', 'Serial', { latencyMs: 1 });
  map.link('line-b', 'plant/arm', 'Wireless', { latencyMs: 8 });
  map.link('annex', 'annex/press', 'Ethernet');
  map.link('munich', 'line-b', 'Federation', { latencyMs: 12 });
  return map;
}

/** A call that must throw an EdgeshifuError; returns its kind and message for assertions. */
export function failure(call: () => unknown): { kind: string; message: string } {
  try {
    call();
  } catch (err) {
    const e = err as { kind?: string; message?: string };
    return { kind: e.kind ?? 'not an EdgeshifuError', message: e.message ?? '' };
  }
  return { kind: 'did not throw', message: '' };
}
