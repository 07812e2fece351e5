// What deviceShifu has seen of its device lately: the last outcome of requests, telemetry polls and
// reachability probes. /ready and the EdgeDevice phase are both judged from it.
export type EvidenceSource = 'request' | 'telemetry' | 'probe';

export interface Outcome {
  readonly ok: boolean;
  readonly at: number;
  readonly message?: string;
}

export interface HealthSnapshot {
  readonly request?: Outcome;
  /** All telemetries together: ok only while the last poll of every one of them was ok. */
  readonly telemetry?: Outcome;
  readonly probe?: Outcome;
  /** When the device last answered, by any means. */
  readonly lastOkAt?: number;
}

export class DeviceHealth {
  private readonly clock: () => number;
  private outcomes: Partial<Record<Exclude<EvidenceSource, 'telemetry'>, Outcome>> = {};
  private telemetries = new Map<string, Outcome>();
  private lastOkAt: number | undefined;
  private readonly listeners: Array<() => void> = [];

  constructor(clock: () => number = Date.now) {
    this.clock = clock;
  }

  /** `telemetry` names which telemetry polled (each one counts on its own). */
  record(source: EvidenceSource, ok: boolean, message?: string, telemetry = ''): void {
    const at = this.clock();
    const outcome = { ok, at, ...(message === undefined ? {} : { message }) };
    if (source === 'telemetry') this.telemetries.set(telemetry, outcome);
    else this.outcomes[source] = outcome;
    if (ok) this.lastOkAt = at;
    for (const listener of this.listeners) listener();
  }

  /** Forget everything: the device (address, protocol) changed. */
  reset(): void {
    this.outcomes = {};
    this.telemetries = new Map();
    this.lastOkAt = undefined;
    for (const listener of this.listeners) listener();
  }

  /** Drops the outcomes of telemetries that no longer exist (after a configuration change). */
  keepTelemetries(names: readonly string[]): void {
    for (const name of [...this.telemetries.keys()]) if (!names.includes(name)) this.telemetries.delete(name);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  now(): number {
    return this.clock();
  }

  snapshot(): HealthSnapshot {
    const polls = [...this.telemetries.values()];
    const failed = polls.find((o) => !o.ok);
    const telemetry = polls.length === 0 ? undefined : { ok: failed === undefined, at: Math.max(...polls.map((o) => o.at)), ...(failed?.message === undefined ? {} : { message: failed.message }) };
    return { ...this.outcomes, ...(telemetry === undefined ? {} : { telemetry }), ...(this.lastOkAt === undefined ? {} : { lastOkAt: this.lastOkAt }) };
  }
}
