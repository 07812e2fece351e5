// An origin's failed deployments are put to auction again one at a time. Retried at the same
// moment, two deployments that failed together for want of room compete for it again and often
// fail together again; one after the other, the first takes the room and the second looks for
// other room (bench/drone-quality.ts: 0.890 of the optimum against 0.859 open, 0.845 against
// 0.819 sealed, on its first instances). Pure: the reconciler holds one and asks it.

export class RetryTurns {
  private current: { key: string; app?: string; since: number } | undefined;
  private readonly waiting: string[] = [];
  /** A turn whose auction never reports (a lost leader, a stuck submit) ends after this long. */
  readonly turnMs: number;

  constructor(turnMs: number) {
    this.turnMs = turnMs;
  }

  /** Whether `key` may be put to auction again now; if not, it waits its turn (in arrival order). */
  take(key: string, now: number): boolean {
    const held = this.current;
    if (held !== undefined && held.key !== key && now - held.since < this.turnMs) {
      if (!this.waiting.includes(key)) this.waiting.push(key);
      return false;
    }
    this.drop(key);
    this.current = { key, since: now };
    return true;
  }

  /**
   * `key` was put to auction under `app` (its turn, or at once for a reason of its own, such as a
   * changed spec: then it waits no more). The turn's decision ends the turn.
   */
  started(key: string, app: string): void {
    this.drop(key);
    if (this.current?.key === key) this.current.app = app;
  }

  /** An auction ended: when it was the turn's, the waiting deployments are returned, to ask again (the first to ask gets it). */
  decided(app: string): string[] {
    if (this.current === undefined || this.current.app !== app) return [];
    this.current = undefined;
    return [...this.waiting];
  }

  /** The deployment is gone: its turn and place in line too; when it held the turn, the waiting ones are returned. */
  forget(key: string): string[] {
    this.drop(key);
    if (this.current?.key !== key) return [];
    this.current = undefined;
    return [...this.waiting];
  }

  /** The deployment whose turn it is (tests, logs). */
  holder(): string | undefined {
    return this.current?.key;
  }

  private drop(key: string): void {
    const at = this.waiting.indexOf(key);
    if (at >= 0) this.waiting.splice(at, 1);
  }
}
