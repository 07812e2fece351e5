// When a sample is worth an EdgeNode status write: only on meaningful change plus a
// heartbeat, never a write per sample. Pure: the reporter keeps what it last wrote.
import { freeCores, type NodeSample } from './sample.ts';

export interface Thresholds {
  /** Change of free CPU as a fraction of the cores. */
  readonly cpu: number;
  /** Change of available memory as a fraction of the total. */
  readonly memory: number;
  /** Change of available disk as a fraction of the total. */
  readonly disk: number;
  readonly heartbeatMs: number;
  /** No two writes closer than this, however noisy the samples (bounds the write rate). */
  readonly minIntervalMs: number;
}

/** What the status says besides the figures: a change here is always meaningful. */
export interface NodeReport {
  readonly sample: NodeSample;
  readonly ready: boolean;
  /** A stable key of the devices list (status.devices). */
  readonly devicesKey: string;
}

export interface Written extends NodeReport {
  readonly at: number;
}

export type WriteReason = 'first' | 'heartbeat' | 'capacity' | 'ready' | 'devices' | 'cpu' | 'memory' | 'disk';
export type WriteDecision = { readonly write: true; readonly reason: WriteReason } | { readonly write: false };

const NO_WRITE: WriteDecision = { write: false };

function changed(before: number, after: number, total: number, threshold: number): boolean {
  if (total <= 0) return before !== after;
  return Math.abs(after - before) / total >= threshold;
}

/** Which meaningful change happened since the last write, if any. */
export function meaningfulChange(previous: NodeReport, report: NodeReport, thresholds: Thresholds): WriteReason | undefined {
  const before = previous.sample;
  const after = report.sample;
  if (before.cpu.cores !== after.cpu.cores || before.memory.totalBytes !== after.memory.totalBytes || before.disk.totalBytes !== after.disk.totalBytes) return 'capacity';
  if (previous.ready !== report.ready) return 'ready';
  if (previous.devicesKey !== report.devicesKey) return 'devices';
  if (changed(freeCores(before), freeCores(after), after.cpu.cores, thresholds.cpu)) return 'cpu';
  if (changed(before.memory.availableBytes, after.memory.availableBytes, after.memory.totalBytes, thresholds.memory)) return 'memory';
  if (changed(before.disk.availableBytes, after.disk.availableBytes, after.disk.totalBytes, thresholds.disk)) return 'disk';
  return undefined;
}

export function shouldWrite(previous: Written | undefined, report: NodeReport, thresholds: Thresholds, now: number): WriteDecision {
  if (previous === undefined) return { write: true, reason: 'first' };
  const since = now - previous.at;
  if (since >= thresholds.heartbeatMs) return { write: true, reason: 'heartbeat' };
  if (since < thresholds.minIntervalMs) return NO_WRITE;
  const reason = meaningfulChange(previous, report, thresholds);
  return reason === undefined ? NO_WRITE : { write: true, reason };
}
