// The REAR flows as named step lists (what each cluster does with each message), so the code
// reads as the workflow does. Each step is a function of the node's shell (rear-node.ts).

/** LIST_FLAVOURS at a supernode: own flavours, then the candidate cache, then ask, merge, cache. */
export const SUPERNODE_DISCOVERY = ['answer from own flavours', 'answer from the peering-candidate cache', 'ask the members and supernodes it knows', 'cache what came back', 'answer what came back'] as const;

/** LIST_FLAVOURS at a member of a domain: its own flavours only. */
export const MEMBER_DISCOVERY = ['answer from own flavours'] as const;

/** RESERVE_FLAVOUR and PURCHASE_FLAVOUR at every hop. */
export const SALE_HOP = ['check the path names the buyer first and the sender last', 'sell here when this cluster is the seller', 'else forward to the next hop with this cluster on the path'] as const;

/** The seller's answer at every hop back. */
export const SALE_ANSWER_HOP = ['take this cluster off the path', 'forward to the last cluster left on it', 'or, when none is left, hand the answer to the request that waits for it'] as const;

/** The buyer's side, one request at a time: sent, then sent again with the same id until answered or out of attempts. */
export const BUYER_REQUEST = ['send to the supernode', 'resend with the same request id after each timeout (backoff)', 'settle with the answer, or fail unavailable'] as const;

/** A flavour left sale, at the seller: its ids told (a supernode tells the supernodes it knows, a member its supernode). */
export const SELLER_FLAVOUR_GONE = ['notice the ids that left what is on sale', 'send one notice (a fresh notice id) to the supernodes it knows, or to its supernode'] as const;

/** A flavour-gone notice at a supernode. */
export const SUPERNODE_FLAVOUR_GONE = ['check the path names the seller first and the sender last', 'drop a notice already seen (by its id)', 'forget the seller\'s flavours it names from the peering-candidate cache', 'pass it to the supernodes it knows that are not on its path'] as const;
