// How the core's messages for several clusters go on the wire (pure). With multicast, one message
// names them all (`recipients`, on a multi-recipient topic): relays carry one copy over each link
// on the way and split it where the routes part, so an origin calling 4 providers on a line sends
// 1 copy over each of 4 links instead of 1 + 2 + 3 + 4. Without multicast (clusters sharing a
// broker, where only a broker's owner may read multi-recipient topics), one message to each (`to`).
import { MAX_RECIPIENTS } from '../../../shared/bus/envelope.ts';
import type { DroneBody } from '../messages/index.ts';
import type { Outbound } from './state.ts';

/** What to publish: a broadcast (neither), one recipient (`to`, also in the body) or several (`recipients`, also in the body). */
export interface WireMessage {
  readonly to?: string;
  readonly recipients?: readonly string[];
  readonly body: DroneBody;
}

/** A message for each of `recipients` (sorted, so the output is deterministic). */
export function toEach(recipients: Iterable<string>, body: DroneBody): Outbound {
  return { recipients: [...new Set(recipients)].sort(), body };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The messages to publish for one outbound message of the core. */
export function onTheWire(m: Outbound, multicast: boolean): WireMessage[] {
  if (m.recipients === undefined) return [m.to === undefined ? { body: m.body } : { to: m.to, body: m.body }];
  if (!multicast || m.recipients.length === 1) return m.recipients.map((to) => ({ to, body: { ...m.body, to } as DroneBody }));
  return chunks(m.recipients, MAX_RECIPIENTS).map((recipients) => (recipients.length === 1
    ? { to: recipients[0] ?? '', body: { ...m.body, to: recipients[0] ?? '' } as DroneBody }
    : { recipients, body: { ...m.body, recipients } as DroneBody }));
}
