// Telemetry by OPC UA subscription: one subscription per telemetry interval, one monitored item
// per telemetry, sampled at that interval with a queue of one (the server keeps only the newest
// value). The items live here, not in the session, so every new session after a reconnect gets
// them again. A server flooding notifications cannot flood deviceShifu: each item hands on at
// most one value per interval (the newest), and the rest are counted as coalesced.
import type { ClientSession, ClientSubscription, DataValue, NodeId } from 'node-opcua-client';
import type { Logger } from '../../shared/log.ts';
import type { DriverResponse, SubscriptionSink } from './driver.ts';
import type { OpcuaConnection } from './opcua-connection.ts';
import { statusError } from './opcua-status.ts';
import { Throttle } from '../telemetry/throttle.ts';

type Lib = typeof import('node-opcua-client');

export interface MonitoredTelemetry {
  readonly nodeId: NodeId;
  readonly intervalMs: number;
  readonly sink: SubscriptionSink;
  readonly signal: AbortSignal;
  readonly respond: (dv: DataValue) => DriverResponse;
}

export class OpcuaSubscriptions {
  private readonly items = new Set<MonitoredTelemetry>();
  private readonly throttles = new Map<MonitoredTelemetry, Throttle<DataValue>>();
  private subscriptions: ClientSubscription[] = [];
  private unlisten: (() => void) | undefined;
  private chain: Promise<void> = Promise.resolve();

  private readonly connection: OpcuaConnection;
  private readonly lib: Lib;
  private readonly logger: Logger;

  constructor(connection: OpcuaConnection, lib: Lib, logger: Logger) {
    this.connection = connection;
    this.lib = lib;
    this.logger = logger;
  }

  add(item: MonitoredTelemetry): void {
    this.items.add(item);
    const throttle = new Throttle<DataValue>(item.intervalMs, (dv) => { this.deliver(item, dv); });
    this.throttles.set(item, throttle);
    item.signal.addEventListener('abort', () => {
      this.items.delete(item);
      throttle.stop();
      this.throttles.delete(item);
    }, { once: true });
    // Every item is (re)made on each new session, one restore at a time: simplest correct restore.
    if (this.unlisten === undefined) {
      const offSession = this.connection.onSession((session) => this.schedule(session));
      const offLoss = this.connection.onLoss((err) => { for (const i of this.items) i.sink.error(err); });
      this.unlisten = () => { offSession(); offLoss(); };
    }
    else if (this.connection.connected) void this.schedule(this.connection.session());
  }

  private schedule(session: ClientSession): Promise<void> {
    const next = this.chain.then(() => this.restore(session));
    this.chain = next.catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, 'OPC UA: making the telemetry subscriptions failed; they are made again on the next session');
    });
    return this.chain;
  }

  stop(): void {
    this.unlisten?.();
    this.unlisten = undefined;
    for (const t of this.throttles.values()) t.stop();
    this.items.clear();
    this.throttles.clear();
    void this.terminate();
  }

  /** Values coalesced by the throttle, for tests and logs. */
  coalesced(): number {
    let n = 0;
    for (const t of this.throttles.values()) n += t.coalesced;
    return n;
  }

  private deliver(item: MonitoredTelemetry, dv: DataValue): void {
    if (item.signal.aborted) return;
    if (dv.statusCode.isNotGood() && !dv.statusCode.name.startsWith('Uncertain')) item.sink.error(statusError(dv.statusCode.name, item.nodeId.toString(), 'subscribe to'));
    else item.sink.value(item.respond(dv));
  }

  private async terminate(): Promise<void> {
    const old = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(old.map((s) => s.terminate().catch(() => undefined)));
  }

  private async restore(session: ClientSession): Promise<void> {
    await this.terminate();
    const byInterval = new Map<number, MonitoredTelemetry[]>();
    for (const item of this.items) byInterval.set(item.intervalMs, [...(byInterval.get(item.intervalMs) ?? []), item]);
    for (const [intervalMs, items] of byInterval) {
      const subscription = await session.createSubscription2({
        requestedPublishingInterval: intervalMs,
        // a keep-alive at least every ~10 s keeps the phase fresh while values do not change
        requestedMaxKeepAliveCount: Math.max(1, Math.ceil(10_000 / intervalMs)),
        requestedLifetimeCount: Math.max(3, Math.ceil(30_000 / intervalMs)) * 3,
        maxNotificationsPerPublish: 1000,
        publishingEnabled: true,
        priority: 1,
      });
      this.subscriptions.push(subscription);
      subscription.on('keepalive', () => { for (const item of items) item.sink.alive(); });
      for (const item of items) {
        const monitored = await subscription.monitor(
          { nodeId: item.nodeId, attributeId: this.lib.AttributeIds.Value },
          { samplingInterval: intervalMs, queueSize: 1, discardOldest: true },
          this.lib.TimestampsToReturn.Both,
        );
        monitored.on('changed', (dv: DataValue) => { this.throttles.get(item)?.offer(dv); });
        monitored.on('err', (message: string) => { item.sink.error(new Error(`OPC UA monitored item ${item.nodeId.toString()}: ${message}`)); });
      }
      this.logger.info({ intervalMs, items: items.length }, 'OPC UA subscription made');
    }
  }
}
