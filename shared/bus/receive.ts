// A bus client's receive path, as a list of named steps run in order over each message that
// arrives (the way aedes writes its connect flow). Each step may stop the flow: with a drop
// reason (counted on edgeshifu_bus_dropped_total, logged unless it is a flood's duplicate or
// rate-limited copy) or quietly (the message is not for this client's handlers). The cheap
// checks come first, so what a flood or a replay sends costs as little as possible: a copy
// already accepted and a neighbour over its rate are dropped before the payload is parsed, and
// the schema check runs only on a message not seen before.
import { errorMessage, EdgeshifuError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { frameOf, keyOf, peekKey, type DropReason, type MessageCodec } from './codec.ts';
import type { SeenIds } from './dedup.ts';
import type { Envelope } from './envelope.ts';
import { matchLevels, type Filter } from './filters.ts';
import { outsideWindow, type RateLimiter, type ReplayWindow } from './guard.ts';
import type { BusMetrics } from './metrics.ts';
import type { Keyring } from './signing.ts';
import type { TopicInfo } from './topics.ts';

/** `payload`: the bytes as received (a relay forwards them without encoding again). */
export type Handler<M> = (message: M, topic: TopicInfo, payload: Buffer) => void;

/** A subscriber's handler and the filters it was given (HandlerOptions in client.ts say what `verify` and `forwarding` mean). */
export interface Route<M> { readonly filters: Filter[]; readonly handler: Handler<M>; readonly verify: boolean; readonly forwarding: boolean }

/** Bytes on a topic outside the message tree (the relays' own control traffic), not decoded. */
export type RawHandler = (topic: string, payload: Buffer) => void;

/** What the receive steps read and keep: the client's settings, memories and subscribers. */
export interface Receiver<M extends Envelope> {
  readonly cluster: string;
  readonly link: string;
  readonly codec: MessageCodec<M>;
  readonly metrics: BusMetrics;
  readonly clock: () => number;
  /** Messages accepted, by key (id and signature), for the replay window at least (guard.ts dedupTtl). */
  readonly seen: SeenIds;
  /** Multi-recipient messages handed to this cluster's own handlers (their copies differ by topic, so `seen` tells them apart). */
  readonly delivered: SeenIds;
  readonly limiter?: RateLimiter;
  readonly replayWindow?: ReplayWindow;
  readonly keyring?: Keyring;
  readonly ignoreOwn: boolean;
  readonly logger?: Logger;
  topicInfo(topic: string): TopicInfo | undefined;
  rawHandlers(): ReadonlyArray<{ filter: Filter; handler: RawHandler }>;
  routesOf(topic: string): Array<Route<M>>;
}

/** A message on its way through the steps: what each step learned, for the next. */
interface Arrival<M> {
  readonly topic: string;
  readonly payload: Buffer;
  readonly info: TopicInfo;
  now: number;
  /** The de-duplication key read from the payload's first bytes, before parsing (codec.ts peekKey). */
  peeked?: string;
  value?: Readonly<Record<string, unknown>>;
  key?: string;
  message?: M;
  routes: Array<Route<M>>;
}

/** Why a step stopped the flow: a drop reason, or none when the message is simply not for these handlers. */
interface Stop { readonly reason?: DropReason; readonly detail?: string }
const QUIET: Stop = {};
type Step<M extends Envelope> = (r: Receiver<M>, a: Arrival<M>) => Stop | undefined;

/** The recipients a message names (signed), for multi-recipient topics. */
function recipientsOf(message: Envelope): readonly string[] {
  const recipients = (message as { recipients?: unknown }).recipients;
  return Array.isArray(recipients) ? recipients.filter((r): r is string => typeof r === 'string') : [];
}

/** What de-duplication knows a copy by: a multi-recipient message's copies differ in the recipients their topic names. */
function copyKey(key: string | undefined, info: TopicInfo): string | undefined {
  return key === undefined || info.scope !== 'multi' ? key : `${key}@${(info.recipients ?? []).join('.')}`;
}

function messageOf<M>(a: Arrival<M>): M {
  if (a.message === undefined) throw new EdgeshifuError('internal', 'a receive step that reads the message ran before decode');
  return a.message;
}

/** Federation messages this cluster wrote itself, echoed back (only when the client asks: ignoreOwn; never a relay). */
function skipOwnEcho<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  return r.ignoreOwn && a.info.scope !== 'local' && a.info.origin === r.cluster ? QUIET : undefined;
}

function noteArrivalTime<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): undefined {
  a.now = r.clock();
  return undefined;
}

/** A copy of a message already accepted (relays deliver a broadcast once per path) is not even parsed. */
function skipSeenCopy<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  a.peeked = copyKey(peekKey(a.payload), a.info);
  return a.peeked !== undefined && r.seen.has(a.peeked, a.now) ? { reason: 'duplicate', detail: a.peeked } : undefined;
}

/** Takes a token from the bucket of the login that published this (never this cluster's own); an empty bucket drops it, counted by neighbour. */
function rateLimit<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  const { info } = a;
  if (r.limiter === undefined || info.publisher === r.cluster || r.limiter.take(info.publisher, info.origin, info.kind, a.now)) return undefined;
  r.metrics.limited.inc({ neighbour: info.publisher, kind: info.kind });
  return { reason: 'rate-limited', detail: `${info.publisher} (for ${info.origin}) over its ${info.kind} rate` };
}

function parse<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  const parsed = r.codec.parse(a.payload);
  if (!parsed.ok) return parsed;
  a.value = parsed.value;
  return undefined;
}

/** A message not framed as `encode` writes it is known by the id (and signature) it parses to. */
function skipSeenMessage<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  a.key = a.peeked ?? copyKey(a.value === undefined ? undefined : keyOf(a.value), a.info);
  return a.key !== undefined && a.peeked === undefined && r.seen.has(a.key, a.now) ? { reason: 'duplicate', detail: a.key } : undefined;
}

/** The schema of the message's kind (codec.ts). */
function decode<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  const decoded = r.codec.check(a.value ?? {});
  if (!decoded.ok) return decoded;
  a.message = decoded.message;
  return undefined;
}

/** The message agrees with its topic: sender, kind and recipients. */
function matchTopic<M extends Envelope>(_r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  const { info } = a;
  const message = messageOf(a);
  if (message.sender !== info.origin) return { reason: 'wrong-sender', detail: `sender ${message.sender} does not match the topic's origin ${info.origin}` };
  if (message.kind !== info.kind) return { reason: 'invalid', detail: `kind ${message.kind} does not match the topic's ${info.kind}` };
  const to = (message as { to?: unknown }).to;
  if (info.scope === 'to' && to !== info.recipient) return { reason: 'wrong-recipient', detail: `message for ${String(to)} on a topic for ${info.recipient ?? ''}` };
  if (info.scope === 'multi') {
    // The topic (rewritten by each relay) may name only recipients the sender named (signed).
    const named = recipientsOf(message);
    const stray = (info.recipients ?? []).filter((n) => !named.includes(n));
    if (to !== undefined || named.length === 0 || stray.length > 0) return { reason: 'wrong-recipient', detail: `message for ${named.join(', ') || String(to)} on a topic for ${(info.recipients ?? []).join(', ')}` };
  }
  return undefined;
}

/** The sender's timestamp is inside the replay window, when there is one. */
function checkReplayWindow<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  const stale = r.replayWindow === undefined ? undefined : outsideWindow(messageOf(a).timestamp, a.now, r.replayWindow);
  return stale === undefined ? undefined : { reason: 'stale', detail: stale };
}

/** Accepted: later copies are duplicates. The key holds the signature too, so a forged copy that arrives first cannot shadow the genuine message. */
function remember<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): undefined {
  r.seen.add(a.key ?? messageOf(a).id, a.now);
  return undefined;
}

/** The handlers whose filters match; a multi-recipient message goes to relays as every copy comes, and to this cluster's own handlers once, when it names this cluster. */
function route<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  const message = messageOf(a);
  const routes = r.routesOf(a.topic);
  if (a.info.scope !== 'multi') a.routes = routes;
  else {
    const own = recipientsOf(message).includes(r.cluster) && !r.delivered.check(message.sig === undefined ? message.id : `${message.id}~${message.sig}`, r.clock());
    a.routes = own ? routes : routes.filter((h) => h.forwarding);
  }
  return a.routes.length === 0 ? QUIET : undefined;
}

/**
 * A wrong signature is always refused; a missing or uncheckable one when the keyring requires
 * signatures. Not checked when no handler asks (a relay's receivers check), on local topics
 * (written only by this cluster's own logins, never relayed), or for this cluster's own messages
 * on its own broker (the broker's ACL proves them: only its logins publish under its id).
 */
function verifySignature<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): Stop | undefined {
  const { info } = a;
  const message = messageOf(a);
  const keyring = r.keyring;
  if (!a.routes.some((h) => h.verify) || (message.sender === r.cluster && !info.relayed)) return undefined;
  if (keyring === undefined || info.scope === 'local') return undefined;
  const frame = message.sig === undefined ? undefined : frameOf(a.payload);
  const verdict = keyring.verify(message.sender, frame?.signed, frame?.sig);
  if (keyring.accepts(verdict)) return undefined;
  return { reason: 'bad-signature', detail: `${verdict} signature from ${message.sender}${info.relayed ? ` relayed by ${info.publisher}` : ''}` };
}

/** Counted as received, then handed to each handler; one that throws is logged and the others still run. */
function deliver<M extends Envelope>(r: Receiver<M>, a: Arrival<M>): undefined {
  const message = messageOf(a);
  r.metrics.received.inc({ kind: message.kind });
  for (const { handler } of a.routes) {
    try {
      handler(message, a.info, a.payload);
    } catch (err) {
      r.logger?.error({ link: r.link, topic: a.topic, err: errorMessage(err) }, 'a bus handler failed');
    }
  }
  return undefined;
}

/** The receive path, in order. */
const RECEIVE_STEPS = [
  skipOwnEcho, noteArrivalTime, skipSeenCopy, rateLimit, parse, skipSeenMessage, decode,
  matchTopic, checkReplayWindow, remember, route, verifySignature, deliver,
] as const;

/** Bytes on a topic outside the message tree: a raw handler's (relays' control traffic), or dropped. */
function readTopic<M extends Envelope>(r: Receiver<M>, topic: string, payload: Buffer): TopicInfo | undefined {
  const info = r.topicInfo(topic);
  if (info !== undefined) return info;
  const raw = r.rawHandlers();
  const levels = raw.length === 0 ? [] : topic.split('/');
  const match = raw.find((h) => matchLevels(h.filter, levels));
  if (match !== undefined) match.handler(topic, payload);
  else drop(r, topic, { reason: 'invalid', detail: 'topic is not in the edgeshifu/v1 tree' });
  return undefined;
}

function drop<M extends Envelope>(r: Receiver<M>, topic: string, stop: Stop): void {
  if (stop.reason === undefined) return;
  r.metrics.dropped.inc({ reason: stop.reason });
  // A flood is counted, not logged message by message (the log would be the next flood).
  if (stop.reason !== 'duplicate' && stop.reason !== 'rate-limited') r.logger?.warn({ link: r.link, topic, reason: stop.reason, detail: stop.detail }, 'dropped a message');
}

/** Runs one message off the broker through the receive steps. */
export function receive<M extends Envelope>(r: Receiver<M>, topic: string, payload: Buffer): void {
  const info = readTopic(r, topic, payload);
  if (info === undefined) return;
  const arrival: Arrival<M> = { topic, payload, info, now: 0, routes: [] };
  for (const step of RECEIVE_STEPS as ReadonlyArray<Step<M>>) {
    const stop = step(r, arrival);
    if (stop !== undefined) {
      drop(r, topic, stop);
      return;
    }
  }
}
