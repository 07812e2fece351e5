// What a hosting cluster agrees to run for its neighbours (pure): the auction bids on resources
// only, so policy is checked when the OffloadRequest arrives, and a refusal is a NACK with the
// reason (issue 8, "NACK → the component goes back to the agreement, excluding the refusing
// cluster"). A workload that does not even parse is refused the same way.
import type { Component } from '../drone/model.ts';
import { workloadValidator, type Workload } from './workload.ts';

function imagesOf(workload: Workload, cluster: string): string[] {
  const containers = (workload.template.spec.template.spec.containers ?? []) as Array<{ image?: unknown }>;
  const images = containers.map((c) => (typeof c.image === 'string' ? c.image : ''));
  for (const o of workload.overrides) if (o.cluster === cluster && o.image !== undefined && images.length > 0) images[0] = o.image;
  return images;
}

/** An admission policy: images must start with one of `allowedImages` (all allowed when empty). */
export function admissionPolicy(cluster: string, allowedImages: readonly string[]): (origin: string, component: Component) => string | undefined {
  return (origin, component) => {
    if (component.workload === undefined) return undefined;
    let workload: Workload;
    try {
      workload = workloadValidator.parse(component.workload, `the workload of ${component.name} from ${origin}`);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    if (allowedImages.length === 0) return undefined;
    const refused = imagesOf(workload, cluster).filter((image) => !allowedImages.some((prefix) => image.startsWith(prefix)));
    return refused.length === 0 ? undefined : `${cluster} runs only images from ${allowedImages.join(', ')} for its neighbours; ${component.name} asks for ${refused.join(', ')}`;
  };
}

/** "a/,b/" → ["a/", "b/"] */
export function imagePrefixes(setting: string): string[] {
  return setting.split(',').map((s) => s.trim()).filter((s) => s !== '');
}
