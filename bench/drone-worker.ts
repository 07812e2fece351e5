// A child process of the DRONE benchmark: runs one BenchGroup (bench/drone-group.ts) and answers
// the parent's calls over the IPC channel: {id, method, args} -> {id, result} or {id, error}.
import { BenchGroup, type GroupSpec } from './drone-group.ts';

interface Call { readonly id: number; readonly method: 'init' | 'startBrokers' | 'start' | 'waitAdverts' | 'counts' | 'run' | 'stop'; readonly args: unknown[] }

let group: BenchGroup | undefined;

async function call(c: Call): Promise<unknown> {
  if (c.method === 'init') {
    group = new BenchGroup(c.args[0] as GroupSpec);
    return null;
  }
  if (group === undefined) throw new Error('init first');
  switch (c.method) {
    case 'startBrokers': return group.startBrokers();
    case 'start': return group.start(c.args[0] as Record<string, string>);
    case 'waitAdverts': return group.waitAdverts(c.args[0] as number);
    case 'counts': return group.counts();
    case 'run': return group.run(c.args[0] as number, c.args[1] as number);
    case 'stop': return group.stop();
  }
}

process.on('message', (c: Call) => {
  call(c).then(
    (result) => { process.send?.({ id: c.id, result: result ?? null }); },
    (err: unknown) => { process.send?.({ id: c.id, error: err instanceof Error ? err.stack ?? err.message : String(err) }); },
  );
});
// The parent going away ends this process too.
process.on('disconnect', () => { process.exit(0); });
