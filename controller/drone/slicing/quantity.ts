// Kubernetes resource quantities as the numbers DRONE works in: cpu in millicores, memory in MiB.
// Parsing is shared/kube/quantity.ts; this adds which input was wrong to the error.
import { EdgeshifuError } from '../../../shared/errors.ts';
import { parseQuantity as parse } from '../../../shared/kube/quantity.ts';

/** The plain value of a quantity (e.g. "250m" -> 0.25, "1Ki" -> 1024). */
export function parseQuantity(quantity: string | number, what: string): number {
  try {
    return parse(quantity);
  } catch (err) {
    throw new EdgeshifuError('invalid', `${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function cpuMillis(quantity: string | number, what: string): number {
  return parseQuantity(quantity, what) * 1000;
}

export function memoryMiB(quantity: string | number, what: string): number {
  return parseQuantity(quantity, what) / 2 ** 20;
}
