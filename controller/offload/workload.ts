// What a DroneFederatedDeployment asks the federation for, as plain data (pure): the DRONE job of
// its components (resources summed from the pod template's requests, one pod per replica), the workload a host
// receives (template, ports, overrides), its revision, and the names things get on each side.
import { createHash } from 'node:crypto';
import { Validator } from '../../shared/validation.ts';
import { EdgeshifuError, errorMessage } from '../../shared/errors.ts';
import { cpuMillis, parseQuantity } from '../../shared/kube/quantity.ts';
import type { CustomObject } from '../../shared/crds/resources.ts';
import {
  DeploymentTemplate, Override, ServicePort,
  type DroneFederatedDeploymentSpec, type DroneFederatedDeploymentStatus, type FederatedComponent,
} from '../../shared/crds/drone.ts';
import type { Component, Job } from '../drone/model.ts';
import { Type, type Static } from '@sinclair/typebox';

export type DroneFederatedDeployment = CustomObject<DroneFederatedDeploymentSpec, DroneFederatedDeploymentStatus>;

/** What travels to the host in leases: enough to run and expose the component, nothing else. */
export const Workload = Type.Object({
  template: DeploymentTemplate,
  ports: Type.Array(ServicePort, { maxItems: 16 }),
  overrides: Type.Array(Override, { maxItems: 64 }),
});
export type Workload = Static<typeof Workload>;
export const workloadValidator = new Validator(Workload, 'workload');

interface Container {
  name?: unknown;
  image?: unknown;
  resources?: { requests?: Record<string, string | number> };
  env?: unknown;
}

function containersOf(template: DeploymentTemplate, where: string): Container[] {
  const containers = template.spec.template.spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) throw new EdgeshifuError('invalid', `${where}: template.spec.template.spec.containers must list at least one container`);
  return containers as Container[];
}

/** cpu (millicores) and memory (MiB) the component reserves: requests × replicas; and one pod per replica. */
export function resourcesOf(component: FederatedComponent, where: string): Component['resources'] {
  let cpu = 0;
  let memory = 0;
  for (const [i, c] of containersOf(component.template, where).entries()) {
    if (typeof c.image !== 'string' || c.image === '') throw new EdgeshifuError('invalid', `${where}: container ${i} has no image`);
    const requests = c.resources?.requests ?? {};
    try {
      cpu += cpuMillis(requests.cpu ?? 0);
      memory += parseQuantity(requests.memory ?? 0) / 2 ** 20;
    } catch (err) {
      throw new EdgeshifuError('invalid', `${where}: container ${i}: ${errorMessage(err)}`);
    }
  }
  const replicas = component.template.spec.replicas ?? 1;
  return { cpu: cpu * replicas, memory: Math.ceil(memory * replicas), pods: replicas };
}

const PORT_NAME = /^[a-z]([-a-z0-9]{0,13}[a-z0-9])?$/;

interface ContainerPort {
  name?: unknown;
  containerPort?: unknown;
  protocol?: unknown;
}

/** The ports the containers declare (TCP and UDP; SCTP is not offered), for a component that lists none itself. */
export function containerPorts(template: DeploymentTemplate): ServicePort[] {
  const containers = template.spec.template.spec.containers;
  if (!Array.isArray(containers)) return [];
  return (containers as Array<{ ports?: unknown }>).flatMap((c) => (Array.isArray(c.ports) ? c.ports as ContainerPort[] : [])).flatMap((p): ServicePort[] => {
    const protocol = p.protocol ?? 'TCP';
    if (!Number.isInteger(p.containerPort) || (protocol !== 'TCP' && protocol !== 'UDP')) return [];
    const port = p.containerPort as number;
    if (port < 1 || port > 65_535) return [];
    // a name a Service port cannot take (a container port's may start with a digit) is left to the default
    return [{ ...(typeof p.name === 'string' && PORT_NAME.test(p.name) ? { name: p.name } : {}), port, protocol }];
  });
}

export type NamedPort = ServicePort & { name: string; protocol: 'TCP' | 'UDP' };

/** Every port named (a Service with several ports needs names): as given, else `<protocol>-<port>`. */
export function namedPorts(ports: readonly ServicePort[]): NamedPort[] {
  return ports.map((p) => {
    const protocol = p.protocol ?? 'TCP';
    return { ...p, name: p.name ?? `${protocol.toLowerCase()}-${String(p.port)}`, protocol };
  });
}

/** Port names and ports must be unique within a component: Kubernetes refuses the Service otherwise. */
function checkPorts(ports: readonly ServicePort[], where: string): void {
  const names = new Set<string>();
  const numbers = new Set<string>();
  for (const p of namedPorts(ports)) {
    if (names.has(p.name)) throw new EdgeshifuError('invalid', `${where}: port name "${p.name}" is used twice; give each port its own name`);
    if (numbers.has(`${p.protocol}/${String(p.port)}`)) throw new EdgeshifuError('invalid', `${where}: port ${String(p.port)}/${p.protocol} is listed twice`);
    names.add(p.name);
    numbers.add(`${p.protocol}/${String(p.port)}`);
  }
}

export function workloadOf(spec: DroneFederatedDeploymentSpec, component: FederatedComponent): Workload {
  return {
    template: component.template,
    ports: component.ports ?? containerPorts(component.template),
    overrides: (spec.overrides ?? []).filter((o) => o.component === undefined || o.component === component.name),
  };
}

/** A short stable digest of what the host should run; a change is a MOD. */
export function revisionOf(workload: Workload): string {
  return createHash('sha256').update(JSON.stringify(workload)).digest('hex').slice(0, 16);
}

/** The DRONE app id of one auction of a deployment: its namespace, name and attempt. */
export function appId(dfd: DroneFederatedDeployment, attempt: number): string {
  return `${dfd.metadata.namespace ?? ''}.${dfd.metadata.name ?? ''}.${attempt}`;
}

/** The DRONE job for the components still to place; `excluded` clusters refused or lost them. */
export function jobOf(dfd: DroneFederatedDeployment, args: { origin: string; app: string; components: readonly string[]; excluded?: readonly string[] }): Job {
  const { spec } = dfd;
  const allowed = spec.placement?.clusters?.allowed;
  const denied = [...(spec.placement?.clusters?.denied ?? []), ...(args.excluded ?? [])];
  const components = spec.components.filter((c) => args.components.includes(c.name)).map((c): Component => {
    const where = `component ${c.name}`;
    const first = containersOf(c.template, where)[0];
    return {
      name: c.name,
      image: typeof first?.image === 'string' ? first.image : '',
      resources: resourcesOf(c, where),
      // dependencies placed by an earlier auction are not part of this one
      ...(c.bootDependencies === undefined ? {} : { bootDependencies: c.bootDependencies.filter((d) => args.components.includes(d)) }),
      ...(allowed === undefined ? {} : { clustersWhitelist: allowed }),
      ...(denied.length === 0 ? {} : { clustersBlacklist: [...new Set(denied)] }),
      workload: workloadOf(spec, c),
    };
  });
  return { app: args.app, origin: args.origin, components, ...(spec.offload === true ? { offload: true } : {}) };
}

/** Checks what the schema cannot: every component has containers with images and valid requests, and distinct ports. */
export function validateDeployment(dfd: DroneFederatedDeployment): void {
  for (const c of dfd.spec.components) {
    resourcesOf(c, `component ${c.name}`);
    checkPorts(workloadOf(dfd.spec, c).ports, `component ${c.name}`);
  }
}

function hash8(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** Hosting side: one namespace per offloading cluster, one name per (app, component). */
export function hostedNames(origin: string, app: string, component: string): { namespace: string; name: string } {
  return { namespace: `drone-${origin}`, name: `${component}-${hash8(`${origin}/${app}`)}` };
}

/** Offloading side, for components that run locally: `<deployment>-<component>`. */
export function localDeploymentName(dfd: DroneFederatedDeployment, component: string): string {
  return `${dfd.metadata.name ?? ''}-${component}`;
}

/** The OffloadRequest of one component, in the deployment's namespace. */
export function offloadRequestName(dfd: DroneFederatedDeployment, component: string): string {
  return `${dfd.metadata.name ?? ''}-${component}`;
}
