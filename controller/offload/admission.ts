// What a hosting cluster agrees to run for a neighbour (pure). The auction bids on resources only,
// so policy is checked when the OffloadRequest arrives, and a refusal is a NACK whose reason names
// every offending field; the origin puts the component to auction without this cluster and, when
// no other cluster takes it, shows the reason in its FAILED status. Deny by default: a neighbour
// without a Federation here, or whose Federation lists no image prefix, gets nothing run.
import type { Component } from '../drone/model.ts';
import type { Federation } from '../drone/neighbours.ts';
import { podSpecErrors } from './hosted-template.ts';
import { annotationViolations, describeViolations, podSecurityViolations, type PodSecurityLevel, type Violation } from './pod-security.ts';
import { workloadValidator, type Workload } from './workload.ts';
import { errorMessage } from '../../shared/errors.ts';

/** What this cluster runs for one neighbour, from its Federation. */
export interface HostingPolicy {
  readonly level: PodSecurityLevel;
  readonly images: readonly string[];
}

/** The neighbour's Federation's `hosting`: restricted unless lowered to baseline, no image unless listed. */
export function hostingPolicyOf(federations: readonly Federation[], origin: string): HostingPolicy | undefined {
  const federation = federations.find((f) => f.spec.clusterId === origin);
  if (federation === undefined) return undefined;
  const hosting = federation.spec.hosting ?? {};
  return { level: hosting.podSecurity === 'baseline' ? 'baseline' : 'restricted', images: hosting.allowedImages ?? [] };
}

interface Container { name?: unknown; image?: unknown }

/** Every container's image as it would run on `cluster` (an override replaces the first container's). */
function imagesOf(workload: Workload, cluster: string): Array<{ path: string; image: string }> {
  const spec = workload.template.spec.template.spec;
  const images = (['initContainers', 'containers'] as const).flatMap((field) => (Array.isArray(spec[field]) ? spec[field] as Container[] : [])
    .map((c, i) => ({ field, path: `spec.template.spec.${field}[${String(i)}].image`, image: typeof c.image === 'string' ? c.image : '' })));
  const first = images.find((i) => i.field === 'containers');
  for (const o of workload.overrides) if (o.cluster === cluster && o.image !== undefined && first !== undefined) first.image = o.image;
  return images.map(({ path, image }) => ({ path, image }));
}

/** The validator's `containers.0.image` as Kubernetes spells paths: `containers[0].image`. */
function kubePath(field: string): string {
  return field.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/** Every reason the workload may not run here, by field path (empty: it may). */
export function workloadViolations(workload: Workload, args: { cluster: string; policy: HostingPolicy; clusterImages: readonly string[] }): Violation[] {
  const { policy, cluster, clusterImages } = args;
  const template = workload.template.spec.template;
  const out: Violation[] = [
    ...annotationViolations(template.metadata?.annotations, 'spec.template.metadata'),
    ...podSecurityViolations(template.spec, policy.level, 'spec.template.spec'),
  ];
  const named = new Set(out.map((v) => v.path));
  for (const e of podSpecErrors(template.spec)) {
    const path = kubePath(e.field);
    if (![...named].some((n) => path === n || path.startsWith(`${n}.`))) out.push({ path, why: e.message === 'is not a known field' ? 'is not a field a hosted Deployment may carry' : e.message });
  }
  for (const { path, image } of imagesOf(workload, cluster)) {
    const listed = policy.images.some((p) => image.startsWith(p));
    const bounded = clusterImages.length === 0 || clusterImages.some((p) => image.startsWith(p));
    if (!listed) out.push({ path, why: policy.images.length === 0 ? `${cluster} runs no image for this neighbour (its Federation lists none in spec.hosting.allowedImages)` : `${image} is not under ${policy.images.join(', ')}` });
    else if (!bounded) out.push({ path, why: `${image} is not under ${clusterImages.join(', ')} (${cluster}'s limit for every neighbour)` });
  }
  return out;
}

/** The refusal as one line, or undefined when the workload may run here. */
export function workloadRefusal(workload: Workload, args: { cluster: string; origin: string; component: string; policy: HostingPolicy | undefined; clusterImages: readonly string[] }): string | undefined {
  const { cluster, origin, component, policy } = args;
  if (policy === undefined) return `${cluster} has no Federation for ${origin} and runs nothing for it`;
  const violations = workloadViolations(workload, { cluster, policy, clusterImages: args.clusterImages });
  if (violations.length === 0) return undefined;
  return `${cluster} (Pod Security ${policy.level}) refuses ${component}: ${describeViolations(violations, 700)}`;
}

/** The agent's admission check: the workload parses, and may run here for that neighbour. */
/** A HostRequest's workload, when it parses and may run here (checked on every reconcile: a MOD or a stricter Federation); else why not, every field named. */
export function admitted(request: { spec: { origin: string; component: string; workload?: unknown } }, args: { cluster: string; policyOf: (origin: string) => HostingPolicy | undefined; clusterImages: readonly string[] }): { workload: Workload; policy: HostingPolicy | undefined } | { refused: string } {
  const { spec } = request;
  let workload: Workload;
  try {
    workload = workloadValidator.parse(spec.workload, `the workload the origin ${spec.origin} sent`);
  } catch (err) {
    return { refused: errorMessage(err) };
  }
  const policy = args.policyOf(spec.origin);
  const refusal = workloadRefusal(workload, { cluster: args.cluster, origin: spec.origin, component: spec.component, policy, clusterImages: args.clusterImages });
  return refusal === undefined ? { workload, policy } : { refused: refusal };
}

export function admissionPolicy(cluster: string, clusterImages: readonly string[], policyOf: (origin: string) => HostingPolicy | undefined): (origin: string, component: Component) => string | undefined {
  return (origin, component) => {
    if (component.workload === undefined) return `${cluster} runs only components that carry their workload`;
    let workload: Workload;
    try {
      workload = workloadValidator.parse(component.workload, `the workload of ${component.name} from ${origin}`);
    } catch (err) {
      return errorMessage(err);
    }
    return workloadRefusal(workload, { cluster, origin, component: component.name, policy: policyOf(origin), clusterImages });
  };
}

/** "a/,b/" → ["a/", "b/"] */
export function imagePrefixes(setting: string): string[] {
  return setting.split(',').map((s) => s.trim()).filter((s) => s !== '');
}
