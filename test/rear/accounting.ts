// What a seller's REAR book holds against its slice, and which Solvers hold which contract, read
// from the running controllers (tests and bench/rear/intent.ts): the invariant every seller keeps
// is that its live contracts and held reservations never exceed what its slice offers, and that
// every Solved Solver holds exactly one live contract on the seller it names.
import type { Member } from '../offload/support.ts';
import type { Solver } from '../../controller/rear/solver-reconciler.ts';
import type { ContractObject } from '../../controller/rear/book-objects.ts';
import { APPS } from '../offload/support.ts';
import { listed, rearOf } from './controllers.ts';

export interface SellerAccount {
  readonly seller: string;
  /** DRONE's slice (cpu m) minus DRONE's own hosted work: what REAR may sell. */
  readonly sellable: number;
  /** cpu m held by live contracts and by reservations. */
  readonly contracts: number;
  readonly reservations: number;
  readonly contractIds: readonly string[];
}

export function sellerAccount(m: Member): SellerAccount {
  const book = rearOf(m).market?.current() ?? { contracts: [], transactions: [] };
  const agent = m.controller.controller.offloader?.federation.agent;
  const drone = (agent?.hosted() ?? []).filter((e) => !e.app.startsWith('rear.')).reduce((a, e) => a + e.resources.cpu, 0);
  const cpu = (list: readonly { resources: { cpu: number } }[]): number => list.reduce((a, x) => a + x.resources.cpu, 0);
  return { seller: m.id, sellable: (agent?.offered().cpu ?? 0) - drone, contracts: cpu(book.contracts), reservations: cpu(book.transactions), contractIds: book.contracts.map((c) => c.contractId).sort() };
}

/** Why a seller's book breaks the invariant, or undefined when it holds. */
export function overheld(a: SellerAccount): string | undefined {
  return a.contracts + a.reservations > a.sellable
    ? `${a.seller} holds ${String(a.contracts)}m in contracts and ${String(a.reservations)}m in reservations on a slice of ${String(a.sellable)}m`
    : undefined;
}

/** The Solved Solvers of `consumer`, by the seller each names: its contract ids. */
export async function solvedBySeller(consumer: Member): Promise<Map<string, string[]>> {
  const solvers = await listed<Solver>(consumer.kube, 'solvers', APPS);
  const out = new Map<string, string[]>();
  for (const s of solvers) {
    if (s.status?.phase !== 'Solved' || s.status.provider === undefined) continue;
    out.set(s.status.provider, [...(out.get(s.status.provider) ?? []), s.status.contractID ?? '?'].sort());
  }
  return out;
}

/** The contract ids of a seller's Active Contract resources (its book as stored). */
export async function storedContracts(m: Member): Promise<string[]> {
  return (await listed<ContractObject>(m.kube, 'contracts')).filter((c) => (c.status?.phase ?? 'Active') === 'Active').map((c) => c.spec.contractID).sort();
}

/** Samples every seller's account until stopped: the first breach seen, if any (the invariant "at every moment", as often as the loop turns). */
export function watchBooks(sellers: readonly Member[], intervalMs = 20): { stop: () => Promise<{ samples: number; breach?: string }> } {
  const running = { on: true };
  let samples = 0;
  let breach: string | undefined;
  const loop = (async () => {
    while (running.on) {
      for (const m of sellers) breach ??= overheld(sellerAccount(m));
      samples += 1;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return { stop: async () => { running.on = false; await loop; return { samples, ...(breach === undefined ? {} : { breach }) }; } };
}
