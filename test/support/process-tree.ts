// Which processes a process tree holds, read from /proc, with identities that survive pid reuse
// (pid plus start time): for the tests that check a stop leaves nothing behind (`npm start` and
// Ctrl-C, `edgeshifu up` and `down`).
import { readdir, readFile } from 'node:fs/promises';

/** A process identity that survives pid reuse: pid plus its start time (field 22 of /proc/<pid>/stat). */
export interface ProcessId { readonly pid: number; readonly start: string; readonly command: string }

async function stat(pid: number): Promise<{ ppid: number; state: string; start: string } | undefined> {
  const text = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  // the command name may hold spaces: fields start after its closing parenthesis
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: Number(fields[1]), start: fields[19] ?? '' };
}

async function command(pid: number): Promise<string> {
  return (await readFile(`/proc/${String(pid)}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim();
}

/** `root` and every live descendant of it (by parent links). */
export async function processTree(root: number): Promise<ProcessId[]> {
  const children = new Map<number, number[]>();
  const starts = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const s = await stat(pid);
    if (s === undefined) continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
    starts.set(pid, s.start);
  }
  const found: ProcessId[] = [];
  const stack = [root];
  for (let pid = stack.pop(); pid !== undefined; pid = stack.pop()) {
    if (!starts.has(pid)) continue;
    found.push({ pid, start: starts.get(pid) ?? '', command: await command(pid) });
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** Every live descendant of `root`, without it. */
export async function descendants(root: number): Promise<ProcessId[]> {
  return (await processTree(root)).filter((p) => p.pid !== root);
}

/** Which of `processes` still run (the same process, not a reused pid; zombies count as gone). */
export async function stillRunning(processes: readonly ProcessId[]): Promise<ProcessId[]> {
  const alive: ProcessId[] = [];
  for (const p of processes) {
    const s = await stat(p.pid);
    if (s !== undefined && s.start === p.start && s.state !== 'Z') alive.push(p);
  }
  return alive;
}
