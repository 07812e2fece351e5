// The bundle phase of the auction (CBBA): greedily add the best eligible component
// (app open and not blacklisted, white/black lists allow this cluster, it fits the room left for
// its origin, and the vote beats the current winner's); when outvoted, release the lost component
// and every one added after it, since their votes were computed on top of it.
import { allows, fits, type Component, type Resources } from '../model.ts';
import { capacityFor, residualFor, roomFor, shares, type CapacityView, type Held } from './budget.ts';
import { fitAware, PACK_BELOW, utility, vote } from './utility.ts';
import { beats, type VoteTable } from './vote-table.ts';

export interface BiddableApp {
  readonly app: string;
  readonly origin: string;
  readonly components: readonly Component[];
  readonly table: VoteTable;
  /** Components already settled (accepted somewhere); no more votes for them. */
  readonly settled: ReadonlySet<string>;
}

export interface BundleItem {
  readonly app: string;
  readonly origin: string;
  readonly component: Component;
  readonly value: number;
}

export function held(items: readonly BundleItem[]): Held[] {
  return items.map((i) => ({ origin: i.origin, app: i.app, component: i.component.name, resources: i.component.resources }));
}

/** Splits the bundle at the first component this cluster no longer wins. */
export function releaseOutvoted(bundle: readonly BundleItem[], tableOf: (item: BundleItem) => VoteTable | undefined, self: string): { kept: BundleItem[]; released: BundleItem[] } {
  const lost = bundle.findIndex((item) => tableOf(item)?.winner(item.component.name)?.cluster !== self);
  if (lost < 0) return { kept: [...bundle], released: [] };
  return { kept: bundle.slice(0, lost), released: bundle.slice(lost) };
}

export interface ExtendInput {
  readonly self: string;
  readonly now: number;
  readonly apps: readonly BiddableApp[];
  readonly bundle: readonly BundleItem[];
  /** The capacity view without the bundle's own holdings (they are added here). */
  readonly base: CapacityView;
  /** Whether a vote must beat the standing winner (open mode) or not (sealed bids see no competitor). */
  readonly mustBeatWinner: boolean;
}

interface Candidate { readonly item: BundleItem }

interface Round {
  readonly view: CapacityView;
  readonly deserved: ReadonlyMap<string, Resources>;
  readonly bundle: readonly BundleItem[];
}

function candidate(input: ExtendInput, round: Round, app: BiddableApp, component: Component): Candidate | undefined {
  const { view, deserved, bundle } = round;
  if (app.settled.has(component.name) || !allows(component, input.self)) return undefined;
  if (bundle.some((b) => b.origin === app.origin && b.app === app.app && b.component.name === component.name)) return undefined;
  // The share decides whether it may take the component; the slice's residual, how much it wants it.
  if (!fits(component.resources, roomFor(view, app.origin, deserved))) return undefined;
  const plain = utility(component.resources, residualFor(view, app.origin), capacityFor(view, app.origin));
  // An origin auctions only what its own room could not hold (local first): it is the cluster under
  // pressure. With room to spare it bids its utility; short of it, the lowest vote, so any provider
  // that can take the component wins it and the origin keeps only what nobody else will hold.
  const u = app.origin === input.self ? (plain >= PACK_BELOW || plain === 0 ? plain : 1) : fitAware(plain);
  if (u === 0) return undefined;
  const value = vote(u, bundle.filter((b) => b.origin === app.origin && b.app === app.app).map((b) => b.value));
  const standing = app.table.ranked(component.name).find((v) => v.cluster !== input.self);
  if (input.mustBeatWinner && standing !== undefined && !beats({ cluster: input.self, value, timestamp: input.now }, standing)) return undefined;
  return { item: { app: app.app, origin: app.origin, component, value } };
}

function better(a: BundleItem, b: BundleItem): boolean {
  if (a.value !== b.value) return a.value > b.value;
  if (a.app !== b.app) return a.app < b.app;
  if (a.origin !== b.origin) return a.origin < b.origin;
  return a.component.name < b.component.name;
}

/** The bundle after greedily adding every component this cluster can win now, in the order added. */
export function extendBundle(input: ExtendInput): BundleItem[] {
  const bundle = [...input.bundle];
  const deserved = shares(input.base);
  for (;;) {
    const view: CapacityView = { ...input.base, held: [...input.base.held, ...held(bundle)] };
    const round: Round = { view, deserved, bundle };
    let best: BundleItem | undefined;
    for (const app of input.apps) {
      for (const component of app.components) {
        const c = candidate(input, round, app, component)?.item;
        best = c !== undefined && (best === undefined || better(c, best)) ? c : best;
      }
    }
    if (best === undefined) return bundle;
    bundle.push(best);
  }
}
