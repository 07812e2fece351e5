// controlMsgs gating for MQTT devices (REFERENCE.md §2): after a command whose payload contains a
// controlMsgs key is published, further publishes are refused (409) until a message containing
// that key's completion string arrives. Pure state, no I/O.
import { EdgeshifuError } from '../../shared/errors.ts';

interface Pending {
  readonly command: string;
  readonly completion: string;
  readonly since: Date;
}

export class ControlGate {
  private readonly controlMsgs: ReadonlyArray<readonly [string, string]>;
  private pending: Pending | undefined;

  constructor(controlMsgs: Readonly<Record<string, string>>) {
    this.controlMsgs = Object.entries(controlMsgs);
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Call before publishing: throws 'conflict' while a command runs; reserves the gate when this
   * payload starts one (so two concurrent commands cannot both pass). Returns whether it reserved.
   */
  claim(payload: string, now: Date = new Date()): boolean {
    if (this.pending !== undefined) {
      const p = this.pending;
      throw new EdgeshifuError('conflict', `device is busy with "${p.command}" since ${p.since.toISOString()}; waiting for a message containing "${p.completion}"`);
    }
    const match = this.controlMsgs.find(([command]) => payload.includes(command));
    if (match === undefined) return false;
    this.pending = { command: match[0], completion: match[1], since: now };
    return true;
  }

  /** The publish that claimed the gate failed: the device never got the command. */
  release(): void {
    this.pending = undefined;
  }

  received(payload: string): void {
    if (this.pending !== undefined && payload.includes(this.pending.completion)) this.pending = undefined;
  }
}
