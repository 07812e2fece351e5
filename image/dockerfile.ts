// Reads the Dockerfile the way the image build here follows it: the build stage's RUN lines and
// the runtime (last) stage's ENV, WORKDIR, USER, EXPOSE, ENTRYPOINT, CMD and COPY --from lines.
// Anything else in the runtime stage is refused, so a Dockerfile change the build here cannot
// follow fails loudly instead of producing an image that disagrees with it.
import { readFile } from 'node:fs/promises';

export interface CopyFromStage { readonly stage: string; readonly source: string; readonly target: string }

export interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly workdir: string | undefined;
  readonly run: readonly string[];
}

export interface RuntimeStage extends Stage {
  readonly env: ReadonlyMap<string, string>;
  readonly user: string | undefined;
  readonly expose: readonly string[];
  readonly entrypoint: readonly string[] | undefined;
  readonly cmd: readonly string[] | undefined;
  readonly copies: readonly CopyFromStage[];
}

export interface Dockerfile { readonly stages: readonly Stage[]; readonly runtime: RuntimeStage }

export class DockerfileUnsupported extends Error {
  override readonly name = 'DockerfileUnsupported';
}

/** Logical instructions: comments dropped, backslash continuations joined. */
function instructions(text: string): { keyword: string; rest: string }[] {
  const joined = text.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n').replace(/\\\n/g, ' ');
  return joined.split('\n').map((line) => line.trim()).filter((line) => line !== '').map((line) => {
    const space = line.search(/\s/);
    return { keyword: line.slice(0, space).toUpperCase(), rest: line.slice(space + 1).trim() };
  });
}

/** ENV a=b c="d e": pairs, double quotes removed. */
function parseEnv(rest: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const match of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const raw = match[2] ?? '';
    pairs.push([match[1] ?? '', raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw]);
  }
  return pairs;
}

function parseExecForm(keyword: string, rest: string): string[] {
  const parsed: unknown = JSON.parse(rest);
  if (!Array.isArray(parsed) || !parsed.every((s) => typeof s === 'string')) {
    throw new DockerfileUnsupported(`${keyword} must be in exec form (a JSON array of strings), got: ${rest}`);
  }
  return parsed;
}

interface MutableRuntime {
  from: string; name: string | undefined; workdir: string | undefined; run: string[];
  env: Map<string, string>; user: string | undefined; expose: string[];
  entrypoint: string[] | undefined; cmd: string[] | undefined; copies: CopyFromStage[];
}

function newStage(rest: string): MutableRuntime {
  const [from = '', as, name] = rest.split(/\s+/);
  return { from, name: as?.toUpperCase() === 'AS' ? name : undefined, workdir: undefined, run: [], env: new Map(), user: undefined, expose: [], entrypoint: undefined, cmd: undefined, copies: [] };
}

function applyCopy(stage: MutableRuntime, rest: string): void {
  const match = /^--from=(\S+)\s+(\S+)\s+(\S+)$/.exec(rest);
  if (match === null) throw new DockerfileUnsupported(`the runtime stage may only COPY --from=<stage> <source> <target>, got: COPY ${rest}`);
  stage.copies.push({ stage: match[1] ?? '', source: match[2] ?? '', target: match[3] ?? '' });
}

function apply(stage: MutableRuntime, keyword: string, rest: string, isLast: boolean): void {
  switch (keyword) {
    case 'WORKDIR': stage.workdir = rest; return;
    case 'RUN': stage.run.push(rest); return;
    case 'ENV': for (const [k, v] of parseEnv(rest)) stage.env.set(k, v); return;
    case 'USER': stage.user = rest; return;
    case 'EXPOSE': stage.expose.push(...rest.split(/\s+/)); return;
    case 'ENTRYPOINT': stage.entrypoint = parseExecForm(keyword, rest); return;
    case 'CMD': stage.cmd = parseExecForm(keyword, rest); return;
    case 'COPY': if (isLast) applyCopy(stage, rest); return;
    default: if (isLast) throw new DockerfileUnsupported(`the image build here cannot follow ${keyword} in the runtime stage`);
  }
}

export function parseDockerfile(text: string): Dockerfile {
  const stages: MutableRuntime[] = [];
  const list = instructions(text);
  const lastFrom = list.map((i) => i.keyword).lastIndexOf('FROM');
  list.forEach(({ keyword, rest }, index) => {
    if (keyword === 'FROM') { stages.push(newStage(rest)); return; }
    const stage = stages.at(-1);
    if (stage === undefined) throw new DockerfileUnsupported(`${keyword} before the first FROM`);
    apply(stage, keyword, rest, index > lastFrom);
  });
  const runtime = stages.at(-1);
  if (runtime === undefined) throw new DockerfileUnsupported('the Dockerfile has no FROM');
  if (runtime.run.length > 0) throw new DockerfileUnsupported('the image build here cannot follow RUN in the runtime stage');
  return { stages, runtime };
}

export async function readDockerfile(path: string): Promise<Dockerfile> {
  return parseDockerfile(await readFile(path, 'utf8'));
}
