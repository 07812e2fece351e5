// `device add --from-dir`: a Shifu example folder (EdgeDevice, deviceShifu ConfigMap, and Shifu's
// own deviceShifu Deployment and Service) applied as edgeshifu wants it: only the EdgeDevices and
// ConfigMaps, since the controller writes the deviceShifu, with the one new field
// `spec.configMapName` filled in when the folder makes it plain (planDir is pure).
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { EdgeshifuError } from '../shared/errors.ts';
import { GROUP } from '../shared/crds/resources.ts';
import { MANAGED_BY_CLI, MANAGED_BY_LABEL, type KubeObject } from './device-manifests.ts';

export interface DirDocument {
  readonly file: string;
  readonly object: KubeObject;
}

export interface DirPlan {
  /** ConfigMaps first: the controller looks for them as soon as the EdgeDevice appears. */
  readonly apply: readonly KubeObject[];
  readonly notes: readonly string[];
}

export interface DirOptions {
  /** Overrides the EdgeDevices' namespace (Shifu's examples use `devices`). */
  readonly namespace?: string;
  readonly deviceShifuNamespace: string;
}

interface DeploymentLike {
  spec?: { template?: { spec?: { volumes?: { configMap?: { name?: string } }[]; containers?: { env?: { name: string; value?: string }[] }[] } } };
}

function describe(doc: DirDocument): string {
  const { kind, metadata } = doc.object;
  return `${kind} ${metadata.namespace === undefined ? '' : `${metadata.namespace}/`}${metadata.name ?? '?'} (${doc.file})`;
}

/** The ConfigMap a Shifu deviceShifu Deployment of this device mounts, if the folder has one. */
function configMapFromDeployment(device: string, deployments: readonly DeploymentLike[], configMaps: ReadonlySet<string>): string | undefined {
  for (const deployment of deployments) {
    const pod = deployment.spec?.template?.spec;
    const serves = pod?.containers?.some((c) => c.env?.some((e) => e.name === 'EDGEDEVICE_NAME' && e.value === device)) === true;
    const mounted = pod?.volumes?.map((v) => v.configMap?.name).find((n): n is string => n !== undefined && configMaps.has(n));
    if (serves && mounted !== undefined) return mounted;
  }
  return undefined;
}

function withConfigMap(doc: DirDocument, configMaps: readonly string[], deployments: readonly DeploymentLike[], notes: string[]): KubeObject {
  const device = doc.object as KubeObject & { spec?: Record<string, unknown> };
  const spec = device.spec ?? {};
  if (typeof spec.configMapName === 'string') return device;
  const name = device.metadata.name ?? '';
  const chosen = configMapFromDeployment(name, deployments, new Set(configMaps)) ?? (configMaps.length === 1 ? configMaps[0] : undefined);
  if (chosen === undefined) {
    const found = configMaps.length === 0 ? 'the folder has no ConfigMap' : `the folder has several (${configMaps.join(', ')}) and no Shifu Deployment says which`;
    throw new EdgeshifuError('invalid', `${describe(doc)}: set spec.configMapName to its deviceShifu ConfigMap: ${found}`);
  }
  notes.push(`EdgeDevice ${name}: spec.configMapName set to ${chosen}`);
  return { ...device, spec: { ...spec, configMapName: chosen } };
}

function skipNote(doc: DirDocument, deviceShifuNamespace: string): string {
  const { kind, metadata } = doc.object;
  if ((kind === 'Deployment' || kind === 'Service') && metadata.namespace === deviceShifuNamespace) {
    return `skipped ${describe(doc)}: edgeshifu's controller writes the deviceShifu itself`;
  }
  return `skipped ${describe(doc)}: not an EdgeDevice or ConfigMap (apply it with kubectl if you need it)`;
}

export function planDir(docs: readonly DirDocument[], options: DirOptions): DirPlan {
  const isDevice = (d: DirDocument): boolean => d.object.kind === 'EdgeDevice' && d.object.apiVersion.startsWith(`${GROUP}/`);
  const devices = docs.filter(isDevice);
  if (devices.length === 0) throw new EdgeshifuError('invalid', `no EdgeDevice (apiVersion ${GROUP}/...) among ${String(docs.length)} documents: is this a Shifu device folder?`);
  const configMaps = docs.filter((d) => d.object.kind === 'ConfigMap' && d.object.apiVersion === 'v1')
    .map((d) => ({ ...d.object, metadata: { ...d.object.metadata, namespace: d.object.metadata.namespace ?? options.deviceShifuNamespace } }));
  const deployments = docs.filter((d) => d.object.kind === 'Deployment').map((d) => d.object as DeploymentLike);
  const notes: string[] = [];
  const named = devices.map((d) => withConfigMap(d, configMaps.map((c) => c.metadata.name ?? ''), deployments, notes));
  const placed = named.map((d) => ({ ...d, metadata: { ...d.metadata, namespace: options.namespace ?? d.metadata.namespace ?? 'devices' } }));
  notes.push(...docs.filter((d) => !isDevice(d) && d.object.kind !== 'ConfigMap').map((d) => skipNote(d, options.deviceShifuNamespace)));
  // Labelled as the short form labels what it writes, so `device rm` removes these ConfigMaps too.
  const labelled = [...configMaps, ...placed].map((o) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, [MANAGED_BY_LABEL]: MANAGED_BY_CLI } } }));
  return { apply: labelled, notes };
}

function parseFile(file: string, text: string): DirDocument[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new EdgeshifuError('invalid', `${file}: ${doc.errors[0]?.message ?? 'not YAML'}`);
    const object = doc.toJS() as KubeObject | null;
    if (object === null) return [];
    if (typeof object.kind !== 'string' || typeof object.apiVersion !== 'string' || typeof object.metadata !== 'object') {
      throw new EdgeshifuError('invalid', `${file}: a document without kind, apiVersion or metadata is not a Kubernetes object`);
    }
    return [{ file, object }];
  });
}

/** Every document of the folder's *.yaml / *.yml files (not recursive), or of one file. */
export async function readShifuDir(path: string): Promise<DirDocument[]> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) throw new EdgeshifuError('invalid', `--from-dir ${path}: no such folder or file`);
  const files = info.isDirectory()
    ? (await readdir(path)).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(path, f))
    : [path];
  if (files.length === 0) throw new EdgeshifuError('invalid', `--from-dir ${path}: no .yaml or .yml file there`);
  const docs: DirDocument[] = [];
  for (const file of files) docs.push(...parseFile(file, await readFile(file, 'utf8')));
  return docs;
}
