// Reclaim on the offloading side (pure; controller/drone/README.md, "Reclaim"): when a
// deployment's failed auction is tried again with reclaim, how a `moved` decision re-points one
// of its components in the status, and what the deployment says when reclaim found no move.
import type { ComponentStatus } from '../../shared/crds/drone.ts';
import type { DroneEvent } from '../drone/agent-core.ts';
import type { Resources } from '../drone/model.ts';
import type { Status } from './origin-plan.ts';

export type Moved = Extract<DroneEvent, { type: 'moved' }>;

/** The federation's slice adverts as one string, by cluster: a deployment is reclaimed at most once per change of it. */
export function advertsDigest(adverts: ReadonlyArray<{ readonly cluster: string; readonly offered: Resources }>): string {
  const sorted = [...adverts].sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  return JSON.stringify(sorted.map((a) => [a.cluster, a.offered.cpu, a.offered.memory, a.offered.pods ?? null]));
}

/**
 * The status with the moved component at its new host, starting afresh there (same app: the new
 * host's HostRequest was made for it). Unchanged when the status does not have it where the move
 * took it from: already applied, or re-placed since (a later auction), so a repeated or late
 * `moved` is never acted on twice.
 */
export function applyMove(status: Status, move: Moved, self: string): Status {
  const components = status.components ?? [];
  const at = components.findIndex((c) => c.name === move.component && c.app === move.app && c.cluster === move.from);
  if (at < 0) return status;
  const moved: ComponentStatus = { name: move.component, cluster: move.to, app: move.app, phase: move.to === self ? 'SCHEDULED' : 'ASSIGNED', message: `moved from ${move.from} to ${move.to}: ${move.reason}` };
  const next = components.map((c, i) => (i === at ? moved : c));
  // the deployment is back to starting that component; overall phase and reason follow from the host's reports
  return { ...status, components: next, ...(status.phase === 'RUNNING' ? { phase: 'PENDING' as const, reason: `waiting for ${move.component} (moved to ${move.to})` } : {}) };
}

/** Whether the status shows the component where the move took it (written: its Event may be recorded). */
export function showsMove(status: Status, move: Moved): boolean {
  return (status.components ?? []).some((c) => c.name === move.component && c.app === move.app && c.cluster === move.to);
}

/** Whether the status still has the component where the move took it from (the move is still to apply). */
export function awaitsMove(status: Status, move: Moved): boolean {
  return (status.components ?? []).some((c) => c.name === move.component && c.app === move.app && c.cluster === move.from);
}

/** Reclaim found no move that makes room: the deployment says so, and what would let it move a launched component. */
export const NO_ROOM_HINT = 'a launched component moves only when its DroneFederatedDeployment sets spec.movable: true';

/** The Ready condition of a deployment that failed for want of room after a reclaim, or undefined. */
export function noRoomCondition(status: Status): { type: 'Ready'; status: 'False'; reason: 'NoRoom'; message: string } | undefined {
  const message = status.reason ?? '';
  if (status.phase !== 'FAILED' || !message.includes('reclaim: ')) return undefined;
  return { type: 'Ready', status: 'False', reason: 'NoRoom', message: message.includes(NO_ROOM_HINT) ? message : `${message} (${NO_ROOM_HINT})` };
}
