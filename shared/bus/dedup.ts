// Message ids seen recently (duplicates are recognised by id). Bounded in size and age,
// so a long-running agent or relay does not grow without limit.
export interface SeenIdsOptions {
  readonly capacity?: number;
  readonly ttlMs?: number;
}

export class SeenIds {
  private readonly expiry = new Map<string, number>();
  private readonly capacity: number;
  private readonly ttlMs: number;

  constructor(options: SeenIdsOptions = {}) {
    this.capacity = options.capacity ?? 100_000;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
  }

  /** True when `id` was seen within the ttl; otherwise remembers it and returns false. */
  check(id: string, now: number): boolean {
    if (this.has(id, now)) return true;
    this.add(id, now);
    return false;
  }

  /** Whether `id` was seen within the ttl (without remembering it). */
  has(id: string, now: number): boolean {
    const until = this.expiry.get(id);
    return until !== undefined && until > now;
  }

  add(id: string, now: number): void {
    this.expiry.delete(id);
    this.expiry.set(id, now + this.ttlMs);
    this.evict(now);
  }

  /** Forgets `id`; true when it was held. */
  delete(id: string): boolean {
    return this.expiry.delete(id);
  }

  get size(): number {
    return this.expiry.size;
  }

  private evict(now: number): void {
    // Map keeps insertion order, so the oldest entries come first.
    for (const [id, until] of this.expiry) {
      if (this.expiry.size <= this.capacity && until > now) break;
      this.expiry.delete(id);
    }
  }
}
