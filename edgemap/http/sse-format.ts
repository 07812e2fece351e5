// Server-sent events as the HTML standard frames them. Every payload is one JSON line (JSON never
// holds a raw line break), so one `data:` field carries it whole.

export function sseEvent(event: 'snapshot' | 'change', id: number, json: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${json}\n\n`;
}

/** A comment line: keeps proxies and the browser from timing the stream out, ignored by EventSource. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

/** How long the browser waits before reconnecting (ms), sent once at the start. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.round(ms)}\n\n`;
}
