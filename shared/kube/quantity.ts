// Kubernetes resource quantities ("250m", "1.5Gi", "2", "1e3") as numbers: CPU in millicores,
// everything else in base units (bytes).
import { EdgeshifuError } from '../errors.ts';

const SUFFIX: Readonly<Record<string, number>> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|([eE][+-]?\d+))?$/;

/** The value of a quantity in base units. */
export function parseQuantity(quantity: string | number): number {
  if (typeof quantity === 'number') return quantity;
  const match = QUANTITY.exec(quantity.trim());
  if (match === null) throw new EdgeshifuError('invalid', `"${quantity}" is not a Kubernetes quantity (e.g. 500m, 2, 128Mi, 1.5Gi)`);
  const value = Number(match[1]);
  if (match[3] !== undefined) return value * 10 ** Number(match[3].slice(1));
  return value * (SUFFIX[match[2] ?? ''] ?? 1);
}

/** CPU in whole millicores. */
export function cpuMillis(quantity: string | number): number {
  return Math.round(parseQuantity(quantity) * 1000);
}

/** Bytes as the kubelet writes a Node's memory: whole kibibytes ("24684092Ki"), exact to 1 KiB. */
export function kibibytes(bytes: number): string {
  return `${String(Math.floor(bytes / 1024))}Ki`;
}

/** Bytes as "3.2Gi"-style text for messages. */
export function formatBytes(bytes: number): string {
  const units: Array<[string, number]> = [['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];
  for (const [unit, size] of units) if (Math.abs(bytes) >= size) return `${(bytes / size).toFixed(1).replace(/\.0$/, '')}${unit}`;
  return `${bytes}`;
}
