// controlMsgs gating for MQTT devices: after a command whose payload contains a
// controlMsgs key is published, further publishes are refused (409) until a message containing
// that key's completion string arrives, or until the gate expires: a completion that never comes
// (a lost message, a device rebooted mid-command) must not block the device for good. Pure state
// with an injected clock, no I/O.
import { EdgeshifuError } from '../../shared/errors.ts';
import { isoTime } from '../../shared/time.ts';

interface Pending {
  readonly command: string;
  readonly completion: string;
  readonly since: number;
}

export interface ExpiredCommand {
  readonly command: string;
  readonly completion: string;
  readonly waitedMs: number;
}

export interface GateOptions {
  /** How long a command may hold the gate without its completion; 0 = until the completion arrives. */
  readonly timeoutMs: number;
  /** Told when a command's gate expired (the caller logs it). */
  readonly onExpire?: (expired: ExpiredCommand) => void;
  readonly now?: () => number;
}

export class ControlGate {
  private readonly controlMsgs: ReadonlyArray<readonly [string, string]>;
  private readonly options: GateOptions;
  private readonly now: () => number;
  private pending: Pending | undefined;

  constructor(controlMsgs: Readonly<Record<string, string>>, options: GateOptions) {
    this.controlMsgs = Object.entries(controlMsgs);
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  get busy(): boolean {
    return this.current() !== undefined;
  }

  /**
   * Call before publishing: throws 'conflict' while a command runs; reserves the gate when this
   * payload starts one (so two concurrent commands cannot both pass). Returns whether it reserved.
   */
  claim(payload: string): boolean {
    const p = this.current();
    if (p !== undefined) {
      const until = this.options.timeoutMs > 0 ? `, at most until ${isoTime(p.since + this.options.timeoutMs)}` : '';
      throw new EdgeshifuError('conflict', `device is busy with "${p.command}" since ${isoTime(p.since)}; waiting for a message containing "${p.completion}"${until}`);
    }
    const match = this.controlMsgs.find(([command]) => payload.includes(command));
    if (match === undefined) return false;
    this.pending = { command: match[0], completion: match[1], since: this.now() };
    return true;
  }

  /** The publish that claimed the gate failed: the device never got the command. */
  release(): void {
    this.pending = undefined;
  }

  received(payload: string): void {
    if (this.pending !== undefined && payload.includes(this.pending.completion)) this.pending = undefined;
  }

  /** The running command, after dropping one whose time is up. */
  private current(): Pending | undefined {
    const p = this.pending;
    if (p === undefined || this.options.timeoutMs <= 0) return p;
    const waitedMs = this.now() - p.since;
    if (waitedMs < this.options.timeoutMs) return p;
    this.pending = undefined;
    this.options.onExpire?.({ command: p.command, completion: p.completion, waitedMs });
    return undefined;
  }
}
