// How REAR and DRONE share one slice (pure). DRONE's host ledger holds what DRONE hosts; REAR
// puts each transaction and contract into the same ledger (as an entry whose app starts with
// `rear.`), so DRONE's auction and admission count them as used. REAR in turn counts DRONE's own
// entries as held, and its own from its book: the `rear.` entries are skipped here, or they
// would be counted twice.
import { SOLD_APP_PREFIX } from '../../drone/host-ledger.ts';
import type { RearResources } from './model.ts';

export const REAR_APP_PREFIX = SOLD_APP_PREFIX;

export interface LedgerEntry {
  readonly origin: string;
  readonly app: string;
  readonly component: string;
  readonly resources: { readonly cpu: number; readonly memory: number; readonly pods?: number };
}

/** DRONE's hosted work, in REAR's units (REAR's own entries left out). */
export function droneHeld(entries: readonly LedgerEntry[]): RearResources[] {
  return entries.filter((e) => !e.app.startsWith(REAR_APP_PREFIX))
    .map((e) => ({ cpu: e.resources.cpu, memory: e.resources.memory, pods: e.resources.pods ?? 1, storage: 0, gpu: 0 }));
}

/** The ledger entry that makes DRONE count a REAR holding (a transaction or a contract). */
export function ledgerEntry(buyer: string, holdingId: string, resources: RearResources): LedgerEntry {
  return { origin: buyer, app: `${REAR_APP_PREFIX}${holdingId}`, component: 'flavour', resources: { cpu: resources.cpu, memory: resources.memory, pods: resources.pods } };
}

/** One REAR holding: a transaction or a contract, by its id. */
export interface Holding {
  readonly id: string;
  readonly buyer: string;
  readonly resources: RearResources;
}

/** What to add to and drop from DRONE's ledger so that its REAR entries are exactly `holdings`. */
export function ledgerSync(holdings: readonly Holding[], entries: readonly LedgerEntry[]): { add: LedgerEntry[]; drop: LedgerEntry[] } {
  const want = new Map(holdings.map((h) => [`${REAR_APP_PREFIX}${h.id}`, ledgerEntry(h.buyer, h.id, h.resources)]));
  const have = entries.filter((e) => e.app.startsWith(REAR_APP_PREFIX));
  const held = new Set(have.map((e) => e.app));
  return { add: [...want.values()].filter((e) => !held.has(e.app)), drop: have.filter((e) => !want.has(e.app)) };
}
