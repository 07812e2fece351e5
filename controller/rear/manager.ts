// Wires REAR into the leader, on top of DRONE (controller/offload/manager.ts): the agent on
// DRONE's signed bus connection with DRONE's keys, the Market selling DRONE's slice (minus what
// DRONE hosts) with its book kept in Transaction and Contract resources, REAR's holdings put
// into DRONE's host ledger (so the auction never sells them), the Flavor resources, the
// consumer's Solver reconciler, and the REST routes for the controller's server.
import { Peering } from './peering/peering.ts';
import { PeeringHost } from './peering/peering-host.ts';
import { podLogRoute } from './peering/log-route.ts';
import { imagePrefixes } from '../offload/admission.ts';
import type { KubernetesListObject } from '@kubernetes/client-node';
import type { KubeClient } from '../../shared/kube/client.ts';
import { Informer } from '../../shared/kube/informer.ts';
import type { BusClient } from '../../shared/bus/client.ts';
import { errorMessage } from '../../shared/errors.ts';
import { Backoff, sleep } from '../../shared/backoff.ts';
import type { Logger } from '../../shared/log.ts';
import type { Registry } from '../../shared/prometheus.ts';
import type { HttpRoute } from '../../shared/node-http.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { DroneFederation } from '../offload/federation.ts';
import { BookStore } from './book-store.ts';
import { BuyerRecords, SOLVER_LABEL } from './buyer-records.ts';
import { BuyerStore } from './buyer-store.ts';
import { sellerSigns } from './contract-signing.ts';
import type { Contract, Flavour, RearResources } from './core/model.ts';
import type { Book } from './core/provider.ts';
import { droneHeld, ledgerSync } from './core/shared-slice.ts';
import { contractEnd } from './core/solver-phases.ts';
import { FlavorPublisher } from './flavor-publisher.ts';
import { rearRoutes } from './http/routes.ts';
import { Market } from './market.ts';
import type { RearMessage } from './messages/index.ts';
import { RearNode } from './rear-node.ts';
import { catalogueOf, termsOf, topologyOf, type RearSettings } from './settings.ts';
import { SolverReconciler, type Solver } from './solver-reconciler.ts';

export interface RearDeps {
  readonly client: KubeClient;
  readonly settings: RearSettings & { readonly droneCluster: string; readonly rearDomain: string; readonly droneAllowedImages: string; readonly dronePublicAddress?: string | undefined };
  readonly federation: DroneFederation;
  /** What this cluster has free for its own work (the Solver's local-capacity check). */
  readonly localFree: () => RearResources;
  readonly logger: Logger;
  readonly registry: Registry;
}

/** How often the seller looks for expiries and for a changed catalogue (DRONE's slice moves too). */
const TICK_MS = 500;

export class RearService {
  market?: Market;
  node?: RearNode;
  store?: BookStore;
  private readonly deps: RearDeps;
  private solvers?: Informer<Solver>;
  private reconciler?: SolverReconciler;
  private records?: BuyerRecords;
  private publisher?: FlavorPublisher;
  private timer?: NodeJS.Timeout;
  private published = '';
  /** The flavour ids on sale at the last tick: those that leave it are told to the supernodes. */
  private onSale: ReadonlySet<string> = new Set();
  private ticking = false;
  private routes?: HttpRoute;
  private peering?: Peering;
  private peeringHost?: PeeringHost;
  private readonly stopping = new AbortController();

  constructor(deps: RearDeps) {
    this.deps = deps;
    // settings are checked at once: a bad flag stops the controller with what to fix
    catalogueOf(deps.settings, deps.settings.droneCluster, deps.settings.rearDomain);
    termsOf(deps.settings);
    topologyOf(deps.settings, deps.settings.droneCluster, deps.settings.rearDomain);
  }

  /** A carried pod's log (peering/log-route.ts). */
  private readonly logRoute = podLogRoute(() => { const p = this.peering; return p === undefined ? undefined : (ns, name, o) => p.logs(ns, name, o); });

  /** The REST routes (answer nothing until REAR runs) and the carried pods' logs. */
  readonly route: HttpRoute = async (req, res) => (await this.logRoute(req, res)) || ((await this.routes?.(req, res)) ?? false);

  async start(): Promise<void> {
    const { client, settings, federation, logger } = this.deps;
    const self = settings.droneCluster;
    const keyring = federation.keys;
    const agent = federation.agent;
    this.store = new BookStore({ client, namespace: settings.rearNamespace, seller: self, sign: (c) => sellerSigns(keyring, c).signatures });
    const store = this.store;
    const book = await this.served('REAR\'s book', () => store.load());
    this.syncLedger(book);
    this.market = new Market({
      config: catalogueOf(settings, self, settings.rearDomain), terms: termsOf(settings), keyring, book,
      slice: () => ({ offered: agent.offered(), held: droneHeld(agent.hosted()) }),
      // the ledger counts a sale as soon as it is decided, not once stored: DRONE admits work meanwhile
      hold: (next) => { this.syncLedger(next); },
      persist: async (next) => {
        const withdrawn = await store.persist(next);
        for (const c of withdrawn) this.tellWithdrawn(c);
        // what is on sale changed (a reservation takes a flavour's id off sale): told at once, not at the next tick
        setImmediate(() => { void this.tick(); });
      },
      countersigned: (signed) => store.countersigned(signed.contract.contractId, signed.signatures.buyer ?? ''),
    });
    // DRONE's connection carries REAR's kinds too (its codec was made with REAR's schemas)
    const bus = federation.connection as unknown as BusClient<RearMessage>;
    this.node = new RearNode({
      bus, topology: topologyOf(settings, self, settings.rearDomain), keyring, market: this.market,
      cacheTtlMs: settings.rearCacheTtlSeconds * 1000, replyTimeoutMs: settings.rearReplyTimeoutMs, logger: logger.child({ part: 'rear' }),
      sold: (contractId, path) => { store.keepRoute(contractId, path).catch((err: unknown) => { logger.warn({ contract: contractId, err: errorMessage(err) }, 'route of a contract not kept'); }); },
      ended: async (m) => {
        const held = await this.records?.ended(m);
        if (held !== undefined) await this.reconciler?.contractEnded(held.namespace, held.solver, `contract ${m.contractId} was ${m.reason} by ${m.seller}: ${m.message}`);
      },
    });
    await this.node.start();
    this.publisher = new FlavorPublisher(client, self);
    const path = `/apis/${API_VERSION}/solvers`;
    this.solvers = new Informer<Solver>({ path, logger: logger.child({ informer: 'Solver' }), watch: client.watch, list: () => client.request<KubernetesListObject<Solver>>('GET', path) });
    const records = new BuyerRecords({ client, keyring, node: this.node, self, logger });
    this.records = records;
    // the buyer's peering candidates and reservations, as resources a restart reads back
    const memory = new BuyerStore({ client, namespace: settings.rearNamespace, buyer: self });
    this.reconciler = new SolverReconciler({ client, solvers: this.solvers, node: this.node, store: memory, bought: (namespace, solver, signed) => records.bought(namespace, solver, signed), localFree: this.deps.localFree, logger, registry: this.deps.registry, candidateTtlMs: settings.rearCacheTtlSeconds * 1000 });
    await this.solvers.start();
    const reconciler = this.reconciler;
    await this.served('the buyer\'s peering candidates', () => reconciler.start());
    // peering: virtual nodes for what this cluster bought, and the pods it hosts for what it sold
    const market = this.market;
    this.peering = new Peering({
      client, bus, settings: { cluster: self, replyTimeoutMs: Math.max(10_000, settings.rearReplyTimeoutMs) }, logger: logger.child({ part: 'rear-peering' }), registry: this.deps.registry,
      // the Solver that bought a contract is Solved once its Allocation is Active (the node Ready), Ended or Failed once it is Released
      allocated: async (contract, phase, node) => {
        const solver = contract.metadata.labels?.[SOLVER_LABEL];
        if (solver === undefined) return;
        const { contractID: contractId, expiresAt } = contract.spec;
        if (phase === 'Active') await this.reconciler?.peered(contract.metadata.namespace ?? '', solver, contractId, node);
        if (phase === 'Released') await this.reconciler?.contractOver(contract.metadata.namespace ?? '', solver, contractId, contractEnd({ contractId, seller: contract.spec.seller.nodeID, expiresAt, ...(contract.status?.phase === undefined ? {} : { phase: contract.status.phase }), deleting: contract.metadata.deletionTimestamp !== undefined }, Date.now()));
      },
    });
    this.peeringHost = new PeeringHost({
      client, bus, cluster: self, contracts: () => market.current().contracts, policyOf: (buyer) => federation.hostingPolicy(buyer),
      clusterImages: imagePrefixes(settings.droneAllowedImages), logger: logger.child({ part: 'rear-peering-host' }),
      ...(settings.dronePublicAddress === undefined ? {} : { publicAddress: settings.dronePublicAddress }),
    });
    await this.peering.start();
    await this.peeringHost.start();
    this.routes = rearRoutes(this.market);
    this.timer = setInterval(() => { void this.tick(); }, TICK_MS);
    this.timer.unref();
    await this.tick();
    logger.info({ cluster: self, domain: settings.rearDomain, supernode: settings.rearSupernode ?? self }, 'REAR started');
  }

  /** A first read of REAR's resources; the API server may not serve them yet (CRDs just made, storage starting): tried again with backoff. */
  private async served<T>(what: string, read: () => Promise<T>): Promise<T> {
    const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
    for (;;) {
      try {
        return await read();
      } catch (err) {
        if (this.stopping.signal.aborted) throw err;
        this.deps.logger.warn({ err: errorMessage(err) }, `${what} not read yet; trying again`);
        await sleep(backoff.next(), this.stopping.signal);
      }
    }
  }

  /** A contract withdrawn before its time: its buyer is told, along the path its purchase came by. */
  private tellWithdrawn(contract: Contract): void {
    const route = this.store?.routes.get(contract.contractId);
    this.store?.routes.delete(contract.contractId);
    if (route === undefined || this.node === undefined) return;
    this.node.tellEnded(contract, route, 'withdrawn', 'the provider withdrew the contract; its resources are no longer held').catch((err: unknown) => {
      this.deps.logger.warn({ contract: contract.contractId, err: errorMessage(err) }, 'buyer not told of a withdrawn contract');
    });
  }

  /** The ids that left sale since the last tick, told to the supernodes (their cached copies would send buyers to nothing). */
  private tellGone(flavours: readonly Flavour[]): void {
    const now = new Set(flavours.map((f) => f.id));
    const gone = [...this.onSale].filter((id) => !now.has(id));
    this.onSale = now;
    if (gone.length === 0 || this.node === undefined) return;
    this.node.tellGone(gone).catch((err: unknown) => { this.deps.logger.warn({ flavours: gone, err: errorMessage(err) }, 'supernodes not told of flavours gone'); });
  }

  /** REAR's holdings into DRONE's host ledger: exactly the live transactions and contracts. */
  private syncLedger(book: Book): void {
    const agent = this.deps.federation.agent;
    const holdings = [...book.transactions.map((t) => ({ id: t.transactionId, buyer: t.buyer, resources: t.resources })), ...book.contracts.map((c) => ({ id: c.contractId, buyer: c.buyer, resources: c.resources }))];
    const { add, drop } = ledgerSync(holdings, agent.hosted());
    const now = Date.now();
    if (add.length > 0) agent.restoreHosted(add.map((e) => ({ ...e, requestId: e.app, acceptedAt: now })));
    for (const e of drop) agent.releaseHosted(e.origin, e.app, e.component);
  }

  /** Expiries swept, and the Flavor resources written when what is on sale changed. */
  private async tick(): Promise<void> {
    const market = this.market;
    if (this.ticking || market === undefined) return;
    this.ticking = true;
    try {
      const due = market.nextExpiry();
      if (due !== undefined && due <= Date.now()) await market.sweep();
      const flavours = market.flavours();
      this.tellGone(flavours);
      const ids = flavours.map((f) => f.id).join(',');
      if (ids !== this.published) {
        await this.publisher?.sync(flavours);
        this.published = ids;
      }
    } catch (err) {
      this.deps.logger.warn({ err: errorMessage(err) }, 'REAR upkeep failed; next tick');
    } finally {
      this.ticking = false;
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer !== undefined) clearInterval(this.timer);
    // requests waiting for answers end now, so the reconcilers waiting on them stop
    this.node?.stop();
    await this.peering?.stop();
    await this.peeringHost?.stop();
    await this.reconciler?.stop();
    await this.solvers?.stop();
  }
}
