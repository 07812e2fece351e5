// kine's own view of the datastore for a benchmark at scale: per SQL statement, how many ran and
// their mean time since the last reading (kine_sql_time_seconds), and the sqlite file's size. It
// tells a slow write in the API server that waits on sqlite from one that waits elsewhere.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

interface Totals { readonly count: number; readonly sum: number }

function parse(body: string): Map<string, Totals> {
  const totals = new Map<string, { count: number; sum: number }>();
  for (const line of body.split('\n')) {
    const m = /^kine_sql_time_seconds_(sum|count)\{(.*)\} (\S+)$/.exec(line);
    const name = m === null ? undefined : /name="([^"]*)"/.exec(m[2] ?? '')?.[1];
    if (m === null || name === undefined) continue;
    const entry = totals.get(name) ?? { count: 0, sum: 0 };
    if (m[1] === 'sum') entry.sum += Number(m[3]); else entry.count += Number(m[3]);
    totals.set(name, entry);
  }
  return totals;
}

async function fileMiB(path: string): Promise<number> {
  return ((await stat(path).catch(() => undefined))?.size ?? 0) / 2 ** 20;
}

/** A reader that, at each call, describes the statements since the previous call, the busiest first. */
export function kineReader(metricsUrl: string, datastoreDir: string): () => Promise<string> {
  let last = new Map<string, Totals>();
  return async () => {
    const body = await fetch(metricsUrl).then(async (r) => r.text()).catch(() => '');
    const now = parse(body);
    const window = [...now].map(([name, t]) => {
      const before = last.get(name) ?? { count: 0, sum: 0 };
      return { name, count: t.count - before.count, sum: t.sum - before.sum };
    }).filter((w) => w.count > 0).sort((a, b) => b.sum - a.sum).slice(0, 5);
    last = now;
    const statements = window.map((w) => `${w.name} ${w.count}×${(1000 * w.sum / w.count).toFixed(1)} ms`).join(', ');
    const [db, wal] = await Promise.all([fileMiB(join(datastoreDir, 'kine.db')), fileMiB(join(datastoreDir, 'kine.db-wal'))]);
    return `kine: ${statements === '' ? 'no statements' : statements}; sqlite ${db.toFixed(0)} MiB (WAL ${wal.toFixed(0)})`;
  };
}
