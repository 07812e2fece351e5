// Kubernetes resource quantities ("250m", "1.5Gi", "2") as the numbers DRONE works in: cpu in
// millicores, memory in MiB.
import { EdgeshifuError } from '../../../shared/errors.ts';

const SUFFIX: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** The plain value of a quantity (e.g. "250m" -> 0.25, "1Ki" -> 1024). */
export function parseQuantity(quantity: string | number, what: string): number {
  if (typeof quantity === 'number') return quantity;
  const match = QUANTITY.exec(quantity.trim());
  if (match === null) throw new EdgeshifuError('invalid', `${what}: "${quantity}" is not a Kubernetes quantity (e.g. 500m, 2, 1Gi)`);
  const base = Number(match[1]);
  if (match[2] !== undefined) return Number(`${match[1] ?? ''}${match[2]}`);
  return base * (SUFFIX[match[3] ?? ''] ?? 1);
}

export function cpuMillis(quantity: string | number, what: string): number {
  return parseQuantity(quantity, what) * 1000;
}

export function memoryMiB(quantity: string | number, what: string): number {
  return parseQuantity(quantity, what) / 2 ** 20;
}
