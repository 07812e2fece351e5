// Standalone mode's EdgeDevice: a manifest file (as applied with kubectl), validated like the API
// server would (nulls dropped, as the API server prunes them; spec checked against the CRD schema).
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import { readText } from '../../shared/files.ts';
import { Validator } from '../../shared/validation.ts';
import { yaml } from '../../shared/yaml.ts';
import specSchema from '../schemas/edgedevice-spec.json' with { type: 'json' };
import type { DeviceIdentity } from '../http/view.ts';

// the CRD's spec schema as JSON, not built by TypeBox at start (../schemas/render.ts)
const validator = new Validator(specSchema as unknown as typeof EdgeDeviceSpec, 'spec');

export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)]));
}

export function edgeDeviceFromManifest(manifest: unknown, origin: string): DeviceIdentity {
  const object = dropNulls(manifest) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown }; spec?: unknown } | undefined;
  if (object?.kind !== 'EdgeDevice') throw new EdgeshifuError('invalid', `${origin}: kind must be EdgeDevice`);
  const name = object.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new EdgeshifuError('invalid', `${origin}: metadata.name is required`);
  const spec = validator.parse(object.spec, `${origin}: EdgeDevice ${name}`);
  const namespace = typeof object.metadata?.namespace === 'string' ? object.metadata.namespace : undefined;
  return { name, ...(namespace === undefined ? {} : { namespace }), spec };
}

export async function readEdgeDeviceFile(path: string): Promise<DeviceIdentity> {
  let manifest: unknown;
  try {
    manifest = yaml().parse(await readText(path));
  } catch (err) {
    throw new EdgeshifuError('invalid', `${path}: ${(err as Error).message}`, { cause: err });
  }
  return edgeDeviceFromManifest(manifest, path);
}
