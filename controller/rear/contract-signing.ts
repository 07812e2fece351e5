// Contracts signed by both sides. The seller signs the contract's terms when it sells; the buyer
// checks that signature against the seller's key (Federation `publicKey`) and countersigns; the
// seller checks the countersignature. What is signed is the terms in a canonical form (keys
// sorted, no signatures), so the same contract gives the same bytes on either side.
import type { Keyring } from '../../shared/bus/signing.ts';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Contract } from './core/model.ts';

export interface Signatures {
  readonly seller: string;
  readonly buyer?: string;
}

export interface SignedContract {
  readonly contract: Contract;
  readonly signatures: Signatures;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
}

/** The bytes both parties sign. */
export function termsBytes(contract: Contract): Buffer {
  return Buffer.from(JSON.stringify(canonical(contract)));
}

function signWith(keyring: Keyring, contract: Contract, role: string): string {
  const sig = keyring.sign(termsBytes(contract));
  if (sig === undefined) throw new EdgeshifuError('invalid', `REAR contracts are signed: give this cluster a signing key (EDGESHIFU_DRONE_SIGNING_KEY) to act as ${role}`);
  return sig;
}

export function sellerSigns(keyring: Keyring, contract: Contract): SignedContract {
  return { contract, signatures: { seller: signWith(keyring, contract, 'seller') } };
}

/** The buyer checks the seller's signature, then countersigns; forbidden when the seller's does not verify. */
export function buyerCountersigns(keyring: Keyring, signed: SignedContract, buyer: string): SignedContract {
  if (signed.contract.buyer !== buyer) throw new EdgeshifuError('forbidden', `contract ${signed.contract.contractId} is for ${signed.contract.buyer}, not ${buyer}`);
  const verdict = keyring.verify(signed.contract.seller.cluster, termsBytes(signed.contract), signed.signatures.seller);
  if (verdict !== 'valid') throw new EdgeshifuError('forbidden', `contract ${signed.contract.contractId}: the seller's signature is ${verdict}`);
  return { contract: signed.contract, signatures: { ...signed.signatures, buyer: signWith(keyring, signed.contract, 'buyer') } };
}

/** Both signatures valid against the parties' keys (the keyring holds the other party's). */
export function verifyContract(keyring: Keyring, signed: SignedContract, self: string): boolean {
  const bytes = termsBytes(signed.contract);
  const check = (party: string, sig: string | undefined): boolean => party === self ? sig !== undefined && keyring.sign(bytes) === sig : keyring.verify(party, bytes, sig) === 'valid';
  return check(signed.contract.seller.cluster, signed.signatures.seller) && check(signed.contract.buyer, signed.signatures.buyer);
}
