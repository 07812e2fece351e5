// Node taints against the tolerations deviceShifu pods carry (pure), with the scheduler's
// matching rules (k8s.io/api core/v1 Toleration.ToleratesTaint): an empty effect matches every
// effect; Exists matches any value, and with an empty key every taint; Equal needs key and value.
// Only NoSchedule and NoExecute keep a pod off a node; PreferNoSchedule is a preference.
import type { V1Taint } from '@kubernetes/client-node';
import { EdgeshifuError } from '../../shared/errors.ts';

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export type TaintEffect = (typeof TAINT_EFFECTS)[number];

export interface Toleration {
  readonly key?: string;
  readonly operator: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: TaintEffect;
}

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/**
 * Taints every pod tolerates without asking: the DefaultTolerationSeconds admission plugin adds
 * these two to each pod, and the Ready check of a candidate node already covers what they mean.
 */
const ADMITTED: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
];

const TERM = /^(\*|[\w./-]+)(?:=([\w.-]*))?(?::(\w+))?$/;

function isEffect(effect: string): effect is TaintEffect {
  return (TAINT_EFFECTS as readonly string[]).includes(effect);
}

function parseTerm(term: string): Toleration {
  const match = TERM.exec(term);
  const [, key = '', value, effect] = match ?? [];
  if (match === null || (key === '*' && value !== undefined)) {
    throw new EdgeshifuError('invalid', `toleration "${term}" is not key, key=value, key:effect, key=value:effect or *[:effect]`);
  }
  if (effect !== undefined && !isEffect(effect)) {
    throw new EdgeshifuError('invalid', `toleration "${term}": effect must be ${TAINT_EFFECTS.join(', ')}`);
  }
  const base = key === '*' ? { operator: 'Exists' as const } : value === undefined ? { key, operator: 'Exists' as const } : { key, operator: 'Equal' as const, value };
  return effect === undefined ? base : { ...base, effect };
}

/**
 * The controller's toleration setting: comma-separated `key=value:Effect` (Equal), `key:Effect`
 * or `key` (Exists), `*` for every taint; a missing effect tolerates all three.
 */
export function parseTolerations(text: string): Toleration[] {
  return text.split(',').map((t) => t.trim()).filter((t) => t !== '').map(parseTerm);
}

export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== taint.effect) return false;
  if (toleration.key !== undefined && toleration.key !== '' && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** The first taint that keeps a pod with these tolerations off the node, if any. */
export function blockingTaint(taints: readonly V1Taint[] | undefined, tolerations: readonly Toleration[]): Taint | undefined {
  const all = [...ADMITTED, ...tolerations];
  return taints?.find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !all.some((t) => tolerates(t, taint)));
}

/** As kubectl writes a taint: key=value:Effect. */
export function describeTaint(taint: Taint): string {
  return `${taint.key}${taint.value === undefined || taint.value === '' ? '' : `=${taint.value}`}:${taint.effect}`;
}
