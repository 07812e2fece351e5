// deviceUpdater's pure half: what this node applies to an EdgeDevice's status (server-side apply
// on /status with a field manager per node, so each node owns only its own links entry and, when
// it speaks for the device, the Reachable condition), and whether anything needs writing at all:
// only on change, plus a slow refresh of lastSeenTime.
import { API_VERSION, EDGE_DEVICE } from '../shared/crds/resources.ts';
import type { EdgeDeviceStatus } from '../shared/crds/edgedevice.ts';
import type { LINK_TYPES } from '../shared/crds/schema.ts';
import { nextCondition, type ConditionUpdate } from './conditions.ts';
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import type { Verdict } from './device-verifier.ts';
import { isoTime } from '../shared/time.ts';

export type LinkType = (typeof LINK_TYPES)[number];
export const REACHABLE = 'Reachable';

export type EdgeDeviceStatusApply = Omit<EdgeDevice, 'spec'>;

/** What this node last applied (or found applied) for one device. */
export interface Applied {
  /** The intent: condition and link type, without times. */
  readonly fingerprint: string;
  /** When the link's lastSeenTime was last written (ms), if linked. */
  readonly lastSeenAt?: number;
}

export interface DeviceStatusInput {
  readonly device: EdgeDevice;
  readonly nodeName: string;
  readonly linkType: LinkType;
  readonly speaks: boolean;
  readonly verdict: Verdict;
  readonly now: number;
  readonly refreshMs: number;
}

function conditionOf(input: DeviceStatusInput): ConditionUpdate | undefined {
  if (!input.speaks) return undefined;
  const { state, reason, message } = input.verdict;
  const status = state === 'online' ? 'True' : state === 'unknown' ? 'Unknown' : 'False';
  const generation = input.device.metadata.generation;
  return {
    type: REACHABLE, status, reason, message: `${message} (seen from node ${input.nodeName})`,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

function fingerprintOf(condition: ConditionUpdate | undefined, link: LinkType | undefined): string {
  return JSON.stringify([condition?.status, condition?.reason, condition?.message, condition?.observedGeneration, link]);
}

/** What the object already says on this node's behalf: the starting point after a restart. */
export function appliedFromObject(device: EdgeDevice, nodeName: string, speaks: boolean): Applied {
  const current = speaks ? device.status?.conditions?.find((c) => c.type === REACHABLE) : undefined;
  const link = device.status?.links?.find((l) => l.node === nodeName);
  const lastSeenAt = link?.lastSeenTime === undefined ? undefined : Date.parse(link.lastSeenTime);
  return { fingerprint: fingerprintOf(current, link?.type), ...(lastSeenAt === undefined ? {} : { lastSeenAt }) };
}

export interface DeviceStatusWrite {
  readonly body: EdgeDeviceStatusApply;
  readonly applied: Applied;
}

/** The apply to send, or undefined when the status already says it and the link is fresh enough. */
export function planDeviceStatus(input: DeviceStatusInput, previous: Applied): DeviceStatusWrite | undefined {
  const condition = conditionOf(input);
  const link = input.verdict.state === 'online' ? input.linkType : undefined;
  const fingerprint = fingerprintOf(condition, link);
  const stale = link !== undefined && (previous.lastSeenAt === undefined || input.now - previous.lastSeenAt >= input.refreshMs);
  if (fingerprint === previous.fingerprint && !stale) return undefined;
  const now = new Date(input.now);
  const status: EdgeDeviceStatus = {};
  if (condition !== undefined) status.conditions = [nextCondition(input.device.status?.conditions, condition, now)];
  if (link !== undefined) status.links = [{ node: input.nodeName, type: link, lastSeenTime: isoTime(now.getTime()) }];
  const { name, namespace } = input.device.metadata;
  return {
    body: { apiVersion: API_VERSION, kind: EDGE_DEVICE.kind, metadata: { name, namespace }, status },
    applied: { fingerprint, ...(link === undefined ? {} : { lastSeenAt: input.now }) },
  };
}
