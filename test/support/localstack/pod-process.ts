// What the development runner starts for one Pod: the container's entrypoint as a local
// process, with the env and mounted ConfigMaps the Pod spec names. Pure: the runner does the I/O.
// This is NOT a kubelet: no images, no isolation, no probes, no restarts, no resource limits.
import type { V1EnvVar, V1Pod } from '@kubernetes/client-node';
import { EdgeshifuError } from '../../../shared/errors.ts';

/** The image's entrypoint takes the component name (Dockerfile); here each maps to its source. */
export const ENTRYPOINTS: Readonly<Record<string, string>> = {
  controller: 'controller/main.ts',
  deviceshifu: 'deviceshifu/main.ts',
  shifud: 'shifud/main.ts',
  mockdevice: 'deviceshifu/mockdevice/main.ts',
};

export interface SecretKey {
  readonly env: string;
  readonly secret: string;
  readonly key: string;
}

export interface LocalProcessPlan {
  readonly pod: string;
  readonly uid: string;
  readonly entrypoint: string;
  readonly args: readonly string[];
  /** Plain values, with the downward API resolved as the runner's host sees it. */
  readonly env: Readonly<Record<string, string>>;
  /** Read from the Secret when the process starts (as the kubelet would). */
  readonly secretEnv: readonly SecretKey[];
  /** ConfigMap volumes to write out as files (one per key). */
  readonly configMaps: readonly { readonly mountPath: string; readonly configMap: string }[];
}

export interface HostFacts {
  readonly nodeName: string;
  /** The address the process binds to: deviceShifu gets it as `status.podIP`. */
  readonly podIP: string;
}

function fieldValue(pod: V1Pod, path: string, host: HostFacts): string {
  switch (path) {
    case 'status.podIP': return host.podIP;
    case 'spec.nodeName': return host.nodeName;
    case 'metadata.name': return pod.metadata?.name ?? '';
    case 'metadata.namespace': return pod.metadata?.namespace ?? '';
    default: throw new EdgeshifuError('invalid', `pod ${pod.metadata?.name ?? ''}: the development runner does not resolve fieldRef ${path}`);
  }
}

function resolveEnv(pod: V1Pod, vars: readonly V1EnvVar[], host: HostFacts): Pick<LocalProcessPlan, 'env' | 'secretEnv'> {
  const env: Record<string, string> = {};
  const secretEnv: SecretKey[] = [];
  for (const v of vars) {
    const from = v.valueFrom;
    if (from?.fieldRef !== undefined) env[v.name] = fieldValue(pod, from.fieldRef.fieldPath, host);
    else if (from?.secretKeyRef !== undefined) secretEnv.push({ env: v.name, secret: from.secretKeyRef.name ?? '', key: from.secretKeyRef.key });
    else env[v.name] = v.value ?? '';
  }
  return { env, secretEnv };
}

/** The process for a Pod's first container, or undefined when the Pod is going away. */
export function planLocalProcess(pod: V1Pod, host: HostFacts): LocalProcessPlan | undefined {
  if (pod.metadata?.deletionTimestamp !== undefined) return undefined;
  const name = pod.metadata?.name ?? '';
  const container = pod.spec?.containers[0];
  if (container === undefined) throw new EdgeshifuError('invalid', `pod ${name} has no container`);
  const [component = '', ...args] = [...(container.command ?? []), ...(container.args ?? [])];
  const entrypoint = ENTRYPOINTS[component];
  if (entrypoint === undefined) {
    throw new EdgeshifuError('invalid', `pod ${name}: the entrypoint argument "${component}" is not one of ${Object.keys(ENTRYPOINTS).join(', ')}`);
  }
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v.configMap?.name]));
  const configMaps = (container.volumeMounts ?? []).flatMap((m) => {
    const configMap = volumes.get(m.name);
    return configMap === undefined ? [] : [{ mountPath: m.mountPath, configMap }];
  });
  return { pod: name, uid: pod.metadata?.uid ?? name, entrypoint, args, ...resolveEnv(pod, container.env ?? [], host), configMaps };
}
