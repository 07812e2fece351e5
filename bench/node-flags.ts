// The Node and V8 flags a component runs with in the cluster, read from where they are set, so a
// bench runs the bundle as the image and its manifest do: the image's NODE_FLAGS (Dockerfile),
// replaced by a manifest's NODE_FLAGS, and a manifest's NODE_OPTIONS.
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { deviceShifuNodeFlags as ownFlags } from '../controller/bundle/node-flags.ts';
import type { Protocol } from '../shared/crds/edgedevice.ts';

const ROOT = new URL('../', import.meta.url);
const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/** The image's NODE_FLAGS (Dockerfile ENV). */
export async function imageNodeFlags(): Promise<string[]> {
  const dockerfile = await readFile(new URL('Dockerfile', ROOT), 'utf8');
  return words(/NODE_FLAGS="([^"]*)"/.exec(dockerfile)?.[1] ?? '');
}

interface Env { readonly name: string; readonly value?: string }
type Workload = { spec?: { template?: { spec?: { containers?: Array<{ env?: Env[] }> } } } } | null;

/** An env value of the first container of the first workload in a manifest (repo-relative path). */
async function manifestEnv(manifest: string, name: string): Promise<string | undefined> {
  const text = await readFile(new URL(manifest, ROOT), 'utf8');
  for (const doc of parseAllDocuments(text)) {
    const containers = (doc.toJSON() as Workload)?.spec?.template?.spec?.containers;
    if (containers !== undefined) return containers[0]?.env?.find((e) => e.name === name)?.value;
  }
  return undefined;
}

/** The flags a manifest's component starts with: its NODE_FLAGS (else the image's), then its NODE_OPTIONS. */
export async function manifestNodeFlags(manifest: string): Promise<string[]> {
  const own = await manifestEnv(manifest, 'NODE_FLAGS');
  const options = await manifestEnv(manifest, 'NODE_OPTIONS');
  return [...(own === undefined ? await imageNodeFlags() : words(own)), ...words(options ?? '')];
}

/**
 * The flags a dedicated deviceShifu of this protocol starts with: its own, which its Deployment sets
 * (controller/bundle/node-flags.ts; OPCUA's old space is capped higher).
 */
export function deviceShifuNodeFlags(protocol: Protocol = 'HTTP'): string[] {
  return [...ownFlags(protocol)];
}
