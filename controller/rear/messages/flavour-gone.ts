// A flavour left sale (reserved, or the slice moved): the seller tells the supernodes, each of
// which forgets those ids from its peering-candidate cache and passes the notice on to the
// supernodes it knows that are not on its path yet. One notice id per telling: a supernode that
// reached by two ways passes it on once.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, message } from '../../../shared/bus/envelope.ts';
import { FlavourId, Path, RequestId } from './wire.ts';

/** At most this many ids in one notice (more are sent as several). */
export const GONE_IDS_MAX = 64;

export const FlavourGoneMessage = message('rear-flavour-gone', {
  to: ClusterId,
  noticeId: RequestId,
  /** The cluster whose flavours left sale: first on the path; only its flavours are forgotten. */
  seller: ClusterId,
  flavourIds: Type.Array(FlavourId, { minItems: 1, maxItems: GONE_IDS_MAX }),
  path: Path,
});
export type FlavourGoneMessage = Static<typeof FlavourGoneMessage>;
