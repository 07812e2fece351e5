// A cluster ready for the controller: CRDs, the deviceshifu and devices namespaces, Shifu's
// thermometer ConfigMap, and helpers to register devices the way a Shifu user does.
import type { ExecutionContext } from 'ava';
import type { V1Deployment } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { ownCluster, type Kube } from '../support/cluster.ts';
import type { TestCluster } from '../support/controlplane/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { kubectl } from '../support/kubectl.ts';
import { shifuExample } from '../support/shifu/index.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { EdgeDevice } from '../../controller/world.ts';

export const CONFIG_MAP = 'thermometer-configmap-0.0.1';

export async function edgeCluster(t: ExecutionContext): Promise<{ cluster: TestCluster; kube: Kube }> {
  const own = await ownCluster(t);
  await installCrds(own.kube);
  for (const name of ['deviceshifu', 'devices']) await own.kube.core.createNamespace({ body: { metadata: { name } } });
  const [configMap] = shifuExample('thermometer-configmap');
  const applied = await kubectl(own.kube.kubeconfigPath, ['apply', '-f', '-'], stringify(configMap));
  if (applied.code !== 0) throw new Error(applied.stderr);
  return own;
}

/** Shifu's thermometer EdgeDevice with the one new field, plus any spec overrides. */
export function thermometer(name = 'edgedevice-thermometer', spec: Record<string, unknown> = {}): Record<string, unknown> {
  const [device] = shifuExample('thermometer');
  const body = device as unknown as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  return { ...body, metadata: { name, namespace: 'devices' }, spec: { ...body.spec, configMapName: CONFIG_MAP, ...spec } };
}

export async function createDevice(kube: Kube, body: Record<string, unknown>): Promise<void> {
  await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', body });
}

export async function readDevice(kube: Kube, name: string): Promise<EdgeDevice> {
  return await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'devices', plural: 'edgedevices', name }) as EdgeDevice;
}

export function conditionOf(device: EdgeDevice, type: string): { status: string; reason: string; message: string } | undefined {
  return device.status?.conditions?.find((c) => c.type === type);
}

/** Waits until the device's condition matches, returning the device. */
export async function waitForCondition(kube: Kube, name: string, type: string, match: { status?: string; reason?: string; timeoutMs?: number }): Promise<EdgeDevice> {
  return waitFor(`${name} ${type} ${JSON.stringify(match)}`, async () => {
    const device = await readDevice(kube, name);
    const c = conditionOf(device, type);
    const ok = c !== undefined && (match.status === undefined || c.status === match.status) && (match.reason === undefined || c.reason === match.reason);
    return ok ? device : undefined;
  }, { timeoutMs: match.timeoutMs ?? 60_000 });
}

export async function deploymentOf(kube: Kube, device: string): Promise<V1Deployment | undefined> {
  try {
    return await kube.apps.readNamespacedDeployment({ namespace: 'deviceshifu', name: `${device}-deployment` });
  } catch {
    return undefined;
  }
}

export function nodeOf(deployment: V1Deployment | undefined): string | undefined {
  return deployment?.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0];
}
