// The shared hosts' reconciler: a node's host exists while at least one device's Service is
// labelled for it, and goes with the last one. Its objects do not depend on which devices it
// serves (the devices bring their own rights and Services), so adding or removing a device
// never rewrites, and never restarts, the host.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../../shared/log.ts';
import { hostObjectName } from '../../shared/node-host.ts';
import { AppliedObjects } from '../applied.ts';
import type { BundleSettings } from '../bundle/deployment.ts';
import { hostDeployment, hostRole, hostRoleBinding, hostServiceAccount } from '../bundle/host.ts';
import type { BundleKind, KubeWriter } from '../kube-writer.ts';
import type { ReconcileResult } from '../runner.ts';
import type { World } from '../world.ts';

/** Queue keys of hosts: a namespace cannot contain '@', so no device key looks like one. */
export const HOST_KEY_PREFIX = '@host/';

export function hostKey(node: string): string {
  return HOST_KEY_PREFIX + node;
}

export function isHostKey(key: string): boolean {
  return key.startsWith(HOST_KEY_PREFIX);
}

export interface HostReconcilerOptions {
  readonly world: World;
  readonly writer: KubeWriter;
  readonly settings: BundleSettings;
}

/** The host's objects, in the order to apply them (pure). */
export function hostObjects(node: string, settings: BundleSettings): KubernetesObject[] {
  return [hostServiceAccount(node, settings.namespace), hostRole(node, settings.namespace), hostRoleBinding(node, settings.namespace), hostDeployment(node, settings)];
}

export class HostReconciler {
  private readonly options: HostReconcilerOptions;
  private readonly applied = new AppliedObjects();

  constructor(options: HostReconcilerOptions) {
    this.options = options;
  }

  /** Whether any device's Service is served by the host of `node`. */
  serves(node: string): boolean {
    let found = false;
    this.options.world.services.forEach((record) => { if (record.shared?.node === node) found = true; });
    return found;
  }

  readonly reconcile = async (key: string, log: Logger): Promise<ReconcileResult> => {
    const node = key.slice(HOST_KEY_PREFIX.length);
    const { settings, writer, world } = this.options;
    if (!this.serves(node)) {
      const name = hostObjectName(node);
      const ns = settings.namespace;
      const gone = world.deployments.get(name, ns) === undefined && !this.applied.has(key, 'Deployment');
      if (gone) return {};
      for (const kind of ['Deployment', 'RoleBinding', 'Role', 'ServiceAccount'] as const satisfies readonly BundleKind[]) await writer.remove(kind, ns, name);
      this.applied.forget(key);
      log.info({ node }, 'no device left on the node\'s shared host: host removed');
      return {};
    }
    for (const object of hostObjects(node, settings)) {
      const marker = object.kind === 'Deployment' ? (world.deployments.get(object.metadata?.name ?? '', settings.namespace)?.generation ?? 'missing') : undefined;
      if (!this.applied.needsAgainst(key, object, marker)) continue;
      const result = await writer.apply(object);
      this.applied.record(key, object, result);
      log.info({ object: `${object.kind ?? ''}/${settings.namespace}/${object.metadata?.name ?? ''}` }, 'applied');
    }
    return {};
  };
}
