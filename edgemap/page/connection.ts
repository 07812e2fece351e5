// The SSE connection: a snapshot, then changes in order. A skipped change (a gap in the sequence,
// or the server dropped us for being slow) means reconnecting for a fresh snapshot.
import type { EdgeMapChange } from '../model.ts';
import type { EdgeMapSnapshot } from '../snapshot.ts';
import { browser, type PageEventSource } from './dom.ts';
import type { ApplyResult } from './mirror.ts';

export interface ConnectionHandlers {
  snapshot(snapshot: EdgeMapSnapshot): void;
  change(change: EdgeMapChange): ApplyResult;
  status(state: 'connecting' | 'live' | 'reconnecting'): void;
}

export function connect(url: string, handlers: ConnectionHandlers): void {
  let source: PageEventSource | undefined;
  const open = (): void => {
    source?.close();
    handlers.status('connecting');
    const es = new (browser().EventSource)(url);
    source = es;
    es.onopen = (): void => { handlers.status('live'); };
    // EventSource retries on its own (the server's `retry:`); we only report it.
    es.onerror = (): void => { handlers.status('reconnecting'); };
    es.addEventListener('snapshot', (event) => { handlers.snapshot(JSON.parse(event.data) as EdgeMapSnapshot); });
    es.addEventListener('change', (event) => {
      if (handlers.change(JSON.parse(event.data) as EdgeMapChange) === 'gap') open();
    });
  };
  open();
}
