// When a device is reconciled again without an event (pure). Each key has its own slot in the
// resync period, by a hash of the key: devices created, or touched, together would otherwise
// resync together for ever, one period apart. At 10,000 devices such a crowd was every device
// within ~10 s once a minute, ~600 MB of garbage in that window under the image's flags and a
// steady-state RSS peak over 100 MB.

/** FNV-1a, 32 bits: cheap, allocates nothing, spreads keys that differ in a digit. */
function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Milliseconds from `now` to the key's next slot that is at least half a period away: between
 * period/2 and 1.5 × period, exactly one period between resyncs that nothing else interrupts.
 */
export function resyncDelay(key: string, now: number, periodMs: number): number {
  const slot = fnv1a(key) % periodMs;
  const sinceSlot = (((now - slot) % periodMs) + periodMs) % periodMs;
  const delay = periodMs - sinceSlot;
  return delay < periodMs / 2 ? delay + periodMs : delay;
}

/** The key's slot among `slots` (0 ≤ slot < slots): periodic work spread over a period by key. */
export function resyncSlot(key: string, slots: number): number {
  return fnv1a(key) % Math.max(1, slots);
}
