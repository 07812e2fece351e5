// EdgeDevices as rows (`device list`, the devices of `status`) and as text (pure).
import type { EdgeDevice } from '../../shared/crds/edgedevice.ts';
import { age, renderTable } from './table.ts';

export type { EdgeDevice };

export interface ConditionSummary {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface DeviceRow {
  readonly namespace: string;
  readonly name: string;
  readonly protocol: string;
  readonly address?: string;
  /** Where its deviceShifu is placed (status.nodeName). */
  readonly node?: string;
  /** status.edgedevicephase, Shifu's field. */
  readonly phase?: string;
  readonly configMap?: string;
  readonly conditions: readonly ConditionSummary[];
  readonly createdAt?: string;
}

export function deviceRow(device: EdgeDevice): DeviceRow {
  return {
    namespace: device.metadata.namespace ?? '',
    name: device.metadata.name ?? '',
    protocol: device.spec.protocol,
    address: device.spec.address,
    node: device.status?.nodeName,
    phase: device.status?.edgedevicephase,
    configMap: device.spec.configMapName,
    conditions: (device.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })),
    createdAt: device.metadata.creationTimestamp as unknown as string | undefined,
  };
}

export function sortRows<T extends { readonly namespace?: string; readonly name: string }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.name.localeCompare(b.name));
}

/** `Scheduled,BundleReady` for conditions that hold; `BundleReady=False(Unschedulable)` for those that do not. */
export function conditionsText(conditions: readonly ConditionSummary[]): string {
  return conditions.map((c) => (c.status === 'True' ? c.type : `${c.type}=${c.status}${c.reason === undefined || c.reason === '' ? '' : `(${c.reason})`}`)).join(',');
}

/** One line per condition that does not hold, with its message: what the user should look at. */
export function deviceProblems(rows: readonly DeviceRow[]): string[] {
  return rows.flatMap((row) => row.conditions
    .filter((c) => c.status !== 'True')
    .map((c) => `${row.namespace}/${row.name}: ${c.type}=${c.status}${c.reason === undefined || c.reason === '' ? '' : ` ${c.reason}`}${c.message === undefined || c.message === '' ? '' : `: ${c.message}`}`));
}

export function renderDevices(rows: readonly DeviceRow[], now: Date): string {
  if (rows.length === 0) return 'no EdgeDevices (add one with `edgeshifu device add`)';
  return renderTable(['namespace', 'name', 'protocol', 'address', 'node', 'phase', 'conditions', 'age'],
    sortRows(rows).map((r) => [r.namespace, r.name, r.protocol, r.address, r.node, r.phase, conditionsText(r.conditions), age(r.createdAt, now)]));
}
