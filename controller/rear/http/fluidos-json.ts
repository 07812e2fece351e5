// FLUIDOS's JSON shapes for REAR's REST routes (pure): a flavour as the reference node lists it,
// its selector, the transaction a RESERVE returns and the contract a PURCHASE returns. The field
// table is in controller/rear/README.md ("FLUIDOS fields").
import { EdgeshifuError } from '../../../shared/errors.ts';
import type { Contract, Flavour, Owner, Take, Transaction } from '../core/model.ts';
import { RESOURCE_KEYS } from '../core/model.ts';
import type { Bounds, Selector } from '../core/selector.ts';
import { fromQuantities, quantityOf, toQuantities } from '../quantities.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const owner = (o: Owner): Record<string, string> => ({ domain: o.domain, nodeID: o.cluster, ip: o.address });

export function flavourJson(f: Flavour): Record<string, unknown> {
  const p = f.policy;
  const partitionability = p.kind === 'partitionable'
    ? Object.fromEntries(RESOURCE_KEYS.flatMap((k) => [[`${k}Min`, toQuantities(p.min)[k]], [`${k}Step`, toQuantities(p.step)[k]]]))
    : undefined;
  return {
    flavorID: f.id,
    providerID: f.owner.cluster,
    flavorType: {
      typeIdentifier: f.type,
      typeData: {
        characteristics: { architecture: f.architecture, ...toQuantities(f.characteristics) },
        policies: p.kind === 'partitionable' ? { partitionability } : { aggregatable: { minCount: p.minCount, maxCount: p.maxCount, units: f.units ?? 0 } },
      },
    },
    owner: owner(f.owner),
    price: { amount: String(f.price.amount), currency: f.price.currency, period: f.price.period },
    availability: f.available,
  };
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new EdgeshifuError('invalid', `${field} must be a JSON object`);
  return value as Record<string, unknown>;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 253) throw new EdgeshifuError('invalid', `${field} must be a string of 1 to 253 characters`);
  return value;
}

const FILTERS: Record<string, typeof RESOURCE_KEYS[number]> = { cpuFilter: 'cpu', memoryFilter: 'memory', podsFilter: 'pods', storageFilter: 'storage', gpuFilter: 'gpu' };

/**
 * A FLUIDOS selector: `{flavorType, filters: {architectureFilter: {name: "Match", data: {value}},
 * cpuFilter: {name: "Range", data: {min, max}} | {name: "Match", data: {value}}, ...}}`.
 */
export function selectorFromJson(json: unknown): Selector {
  const body = object(json, 'selector');
  const filters = body.filters === undefined ? {} : object(body.filters, 'selector.filters');
  const bounds: Partial<Record<typeof RESOURCE_KEYS[number], Bounds>> = {};
  let architecture: string | undefined;
  for (const [name, raw] of Object.entries(filters)) {
    const filter = object(raw, `selector.filters.${name}`);
    const data = object(filter.data, `selector.filters.${name}.data`);
    const field = `selector.filters.${name}.data`;
    if (name === 'architectureFilter') {
      if (filter.name !== 'Match') throw new EdgeshifuError('invalid', `selector.filters.architectureFilter.name must be "Match"`);
      architecture = text(data.value, `${field}.value`);
      continue;
    }
    const key = FILTERS[name];
    if (key === undefined) throw new EdgeshifuError('invalid', `selector.filters.${name} is not a known filter; use architectureFilter, ${Object.keys(FILTERS).join(', ')}`);
    if (filter.name === 'Match') {
      const v = quantityOf(key, data.value, `${field}.value`);
      bounds[key] = { min: v, max: v };
    } else if (filter.name === 'Range') {
      bounds[key] = {
        ...(data.min === undefined ? {} : { min: quantityOf(key, data.min, `${field}.min`) }),
        ...(data.max === undefined ? {} : { max: quantityOf(key, data.max, `${field}.max`) }),
      };
    } else throw new EdgeshifuError('invalid', `selector.filters.${name}.name must be "Match" or "Range"`);
  }
  return {
    ...(body.flavorType === undefined ? {} : { type: text(body.flavorType, 'selector.flavorType') }),
    ...(architecture === undefined ? {} : { architecture }),
    bounds,
  };
}

export interface ReserveJson {
  readonly flavourId: string;
  readonly buyer: string;
  readonly requestId?: string;
  readonly take: Take;
}

/** `{flavorID, buyer: {nodeID, ...}, requestID?, configuration?: {type, data: {cpu, memory, ...} | {units}}}`. */
export function reserveFromJson(json: unknown): ReserveJson {
  const body = object(json, 'body');
  const buyer = object(body.buyer, 'buyer');
  let take: Take = {};
  if (body.configuration !== undefined) {
    const data = object(object(body.configuration, 'configuration').data, 'configuration.data');
    if (data.units !== undefined) {
      if (!Number.isInteger(data.units)) throw new EdgeshifuError('invalid', 'configuration.data.units must be a whole number');
      take = { units: data.units as number };
    } else take = { partition: fromQuantities(data, 'configuration.data') };
  }
  return {
    flavourId: text(body.flavorID, 'flavorID'),
    buyer: text(buyer.nodeID, 'buyer.nodeID'),
    ...(body.requestID === undefined ? {} : { requestId: text(body.requestID, 'requestID') }),
    take,
  };
}

export function purchaseFromJson(json: unknown, transactionId: string): { transactionId: string; flavourId: string; buyer: string; durationMs?: number } {
  const body = object(json, 'body');
  if (body.transactionID !== undefined && body.transactionID !== transactionId) throw new EdgeshifuError('invalid', `transactionID ${JSON.stringify(body.transactionID)} differs from the one in the path, ${transactionId}`);
  const duration = body.durationSeconds;
  if (duration !== undefined && !(Number.isInteger(duration) && (duration as number) > 0)) throw new EdgeshifuError('invalid', 'durationSeconds must be a whole number above 0');
  return {
    transactionId, flavourId: text(body.flavorID, 'flavorID'), buyer: text(body.buyerID, 'buyerID'),
    ...(duration === undefined ? {} : { durationMs: (duration as number) * 1000 }),
  };
}

export function transactionJson(t: Transaction): Record<string, unknown> {
  return { transactionID: t.transactionId, flavorID: t.flavourId, buyer: { nodeID: t.buyer }, resources: toQuantities(t.resources), price: { ...t.price, amount: String(t.price.amount) }, startTime: iso(t.startTime), expirationTime: iso(t.expiresAt) };
}

export function contractJson(c: Contract, signatures: { seller: string; buyer?: string }): Record<string, unknown> {
  return {
    contractID: c.contractId, transactionID: c.transactionId, flavorID: c.flavourId,
    buyer: { nodeID: c.buyer }, seller: owner(c.seller), buyerID: c.buyer, sellerID: c.seller.cluster,
    resources: toQuantities(c.resources), architecture: c.architecture, price: { ...c.price, amount: String(c.price.amount) },
    startTime: iso(c.startTime), expirationTime: iso(c.expiresAt),
    peeringTargetCredentials: { clusterID: c.peering.cluster, namespace: c.peering.namespace },
    signatures,
  };
}
