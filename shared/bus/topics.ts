// The versioned topic tree of the edgeshifu bus (controller/drone/README.md has the table). The
// first level after the version is always the publishing cluster, so a broker can let a cluster
// publish only under its own id; relays publish under their own id too and name the origin after.
//
//   edgeshifu/v1/<publisher>/fed/<kind>                          broadcast to the federation
//   edgeshifu/v1/<publisher>/to/<recipient>/<kind>               directed to one cluster
//   edgeshifu/v1/<publisher>/multi/<r1>.<r2>.../<kind>           directed to several clusters (one copy per relay edge)
//   edgeshifu/v1/<relayer>/relay/<origin>/fed/<kind>             broadcast, relayed
//   edgeshifu/v1/<relayer>/relay/<origin>/to/<recipient>/<kind>  directed, relayed
//   edgeshifu/v1/<relayer>/relay/<origin>/multi/<r1>.../<kind>    multi-recipient, relayed: the recipients this copy is for
//   edgeshifu/v1/<cluster>/local/<kind>                          inside one cluster, never relayed
//   edgeshifu/v1/<relayer>/relayctl/<neighbour>                  relay to relay: its routes (routes.ts)
import { EdgeshifuError } from '../errors.ts';
import { MAX_RECIPIENTS } from './envelope.ts';

export const TOPIC_ROOT = 'edgeshifu/v1';
const SEGMENT = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function segment(value: string, what: string): string {
  if (!SEGMENT.test(value)) throw new EdgeshifuError('invalid', `${what} "${value}" is not a valid topic segment: use lower-case letters, digits and dashes`);
  return value;
}

export function broadcastTopic(publisher: string, kind: string): string {
  return `${TOPIC_ROOT}/${segment(publisher, 'cluster id')}/fed/${segment(kind, 'message kind')}`;
}

export function directTopic(publisher: string, recipient: string, kind: string): string {
  return `${TOPIC_ROOT}/${segment(publisher, 'cluster id')}/to/${segment(recipient, 'recipient cluster id')}/${segment(kind, 'message kind')}`;
}

/** Separates the recipients of a multi-recipient topic's level (cluster ids never contain a dot). */
const RECIPIENT_SEPARATOR = '.';

/**
 * A message for several clusters at once, published once: relays forward one copy per link along
 * the routes towards its recipients, naming in the topic the recipients each copy is for. Only a
 * broker's owner reads these topics (acl.ts), so every cluster's agent must own its broker.
 */
export function multiTopic(publisher: string, recipients: readonly string[], kind: string): string {
  return `${TOPIC_ROOT}/${segment(publisher, 'cluster id')}/multi/${recipientsLevel(recipients)}/${segment(kind, 'message kind')}`;
}

function recipientsLevel(recipients: readonly string[]): string {
  if (recipients.length === 0 || recipients.length > MAX_RECIPIENTS) throw new EdgeshifuError('invalid', `a multi-recipient topic names 1 to ${MAX_RECIPIENTS} recipients, not ${recipients.length}`);
  return recipients.map((r) => segment(r, 'recipient cluster id')).join(RECIPIENT_SEPARATOR);
}

function recipientsOf(level: string): string[] | undefined {
  const recipients = level.split(RECIPIENT_SEPARATOR);
  return recipients.length <= MAX_RECIPIENTS && recipients.every((r) => SEGMENT.test(r)) ? recipients : undefined;
}

export function localTopic(cluster: string, kind: string): string {
  return `${TOPIC_ROOT}/${segment(cluster, 'cluster id')}/local/${segment(kind, 'message kind')}`;
}

export interface TopicInfo {
  /** Who published on this broker: the origin, or the relay that forwarded it. */
  readonly publisher: string;
  /** Who wrote the message (equals publisher unless relayed). */
  readonly origin: string;
  readonly scope: 'fed' | 'to' | 'multi' | 'local';
  /** scope 'to': the recipient. */
  readonly recipient?: string;
  /** scope 'multi': the recipients this copy is for. */
  readonly recipients?: readonly string[];
  readonly kind: string;
  readonly relayed: boolean;
}

function parseMulti(publisher: string, origin: string, relayed: boolean, tail: string[]): TopicInfo | undefined {
  const [, level, kind, ...rest] = tail;
  const recipients = level === undefined ? undefined : recipientsOf(level);
  return recipients === undefined || kind === undefined || rest.length > 0 ? undefined : { publisher, origin, scope: 'multi', recipients, kind, relayed };
}

function parseTail(publisher: string, origin: string, relayed: boolean, tail: string[]): TopicInfo | undefined {
  const [scope, a, b, ...rest] = tail;
  if (scope === 'fed' && a !== undefined && b === undefined) return { publisher, origin, scope, kind: a, relayed };
  if (scope === 'to' && a !== undefined && b !== undefined && rest.length === 0) return { publisher, origin, scope, recipient: a, kind: b, relayed };
  if (scope === 'multi') return parseMulti(publisher, origin, relayed, tail);
  if (scope === 'local' && !relayed && a !== undefined && b === undefined) return { publisher, origin, scope, kind: a, relayed };
  return undefined;
}

/** The parts of a topic of this tree, or undefined for any other topic. */
export function parseTopic(topic: string): TopicInfo | undefined {
  const parts = topic.split('/');
  if (parts[0] !== 'edgeshifu' || parts[1] !== 'v1') return undefined;
  const [publisher, next, origin, ...rest] = parts.slice(2);
  if (publisher === undefined || !SEGMENT.test(publisher)) return undefined;
  if (next === 'relay') return origin !== undefined && SEGMENT.test(origin) ? parseTail(publisher, origin, true, rest) : undefined;
  return parseTail(publisher, publisher, false, parts.slice(3));
}

/**
 * The topic under which `relayer` forwards a message that arrived on a topic described by `info`
 * (never local traffic); a multi-recipient copy names `recipients`, those it is for on that link.
 */
export function relayTopicOf(relayer: string, info: TopicInfo, recipients?: readonly string[]): string {
  if (info.scope === 'local') throw new EdgeshifuError('invalid', 'local traffic is never relayed');
  const scope = info.scope === 'fed' ? `fed/${info.kind}` : info.scope === 'multi' ? `multi/${recipientsLevel(recipients ?? info.recipients ?? [])}/${info.kind}` : `to/${info.recipient ?? ''}/${info.kind}`;
  return `${TOPIC_ROOT}/${segment(relayer, 'relay cluster id')}/relay/${info.origin}/${scope}`;
}

/**
 * Relay control (routes.ts): what relay `from` tells its neighbour `to`, published on `to`'s
 * broker under `from`'s id. Outside the message tree: no agent reads it and no relay forwards it.
 */
export function relayControlTopic(from: string, to: string): string {
  return `${TOPIC_ROOT}/${segment(from, 'relay cluster id')}/relayctl/${segment(to, 'neighbour cluster id')}`;
}

/** What a relay reads on its own broker: its neighbours' control messages to it. */
export function relayControlFilter(self: string): string {
  return `${TOPIC_ROOT}/+/relayctl/${segment(self, 'cluster id')}`;
}

/** What a cluster's agent subscribes to on its own broker: all broadcasts, what is addressed to it, its local traffic. */
export function agentFilters(cluster: string): string[] {
  const self = segment(cluster, 'cluster id');
  return [
    `${TOPIC_ROOT}/+/fed/#`,
    `${TOPIC_ROOT}/+/relay/+/fed/#`,
    `${TOPIC_ROOT}/+/to/${self}/#`,
    `${TOPIC_ROOT}/+/relay/+/to/${self}/#`,
    `${TOPIC_ROOT}/${self}/local/#`,
  ];
}

/**
 * What an agent that owns its broker subscribes to besides agentFilters: multi-recipient messages
 * (only a broker's owner may read them; the client hands the agent those that name its cluster).
 */
export function multiFilters(): string[] {
  return [`${TOPIC_ROOT}/+/multi/#`, `${TOPIC_ROOT}/+/relay/+/multi/#`];
}

/** What a relay forwards from its own broker: everything federated (not local). */
export const RELAY_FILTERS = [`${TOPIC_ROOT}/+/fed/#`, `${TOPIC_ROOT}/+/to/#`, `${TOPIC_ROOT}/+/multi/#`, `${TOPIC_ROOT}/+/relay/#`];
