// REAR's plain data (pure): what a provider sells (a flavour), what a buyer holds (a transaction,
// then a contract), in the units DRONE's slicing uses (cpu in millicores, memory in MiB, pods a
// count) plus storage (MiB) and gpus (a count), which only REAR sells. Prices are per period.

export interface RearResources {
  readonly cpu: number;
  readonly memory: number;
  readonly pods: number;
  readonly storage: number;
  readonly gpu: number;
}

export const RESOURCE_KEYS = ['cpu', 'memory', 'pods', 'storage', 'gpu'] as const;
export type ResourceKey = typeof RESOURCE_KEYS[number];

export const NONE: RearResources = { cpu: 0, memory: 0, pods: 0, storage: 0, gpu: 0 };
const EPSILON = 1e-9;

export function plus(a: RearResources, b: RearResources): RearResources {
  return { cpu: a.cpu + b.cpu, memory: a.memory + b.memory, pods: a.pods + b.pods, storage: a.storage + b.storage, gpu: a.gpu + b.gpu };
}

/** What is left of `a` once `b` is taken, never below zero. */
export function minus(a: RearResources, b: RearResources): RearResources {
  const left = (k: ResourceKey): number => Math.max(0, a[k] - b[k]);
  return { cpu: left('cpu'), memory: left('memory'), pods: left('pods'), storage: left('storage'), gpu: left('gpu') };
}

export function times(a: RearResources, n: number): RearResources {
  return { cpu: a.cpu * n, memory: a.memory * n, pods: a.pods * n, storage: a.storage * n, gpu: a.gpu * n };
}

export function total(items: Iterable<RearResources>): RearResources {
  let sum = NONE;
  for (const r of items) sum = plus(sum, r);
  return sum;
}

export function within(need: RearResources, room: RearResources): boolean {
  return RESOURCE_KEYS.every((k) => need[k] <= room[k] + EPSILON);
}

/** The resources in which `need` exceeds `room`, for reasons ("cpu, pods"). */
export function shortOf(need: RearResources, room: RearResources): ResourceKey[] {
  return RESOURCE_KEYS.filter((k) => need[k] > room[k] + EPSILON);
}

export function describe(r: RearResources): string {
  return `cpu ${r.cpu}m, memory ${r.memory}Mi, ${r.pods} pods, storage ${r.storage}Mi, ${r.gpu} gpu`;
}

export const PERIODS = ['hourly', 'daily', 'monthly'] as const;
export type Period = typeof PERIODS[number];

export interface Price {
  readonly amount: number;
  readonly currency: string;
  readonly period: Period;
}

/** Hours in a period, to compare prices: a month counts 30 days. */
const HOURS: Record<Period, number> = { hourly: 1, daily: 24, monthly: 720 };

export function perHour(price: Price): number {
  return price.amount / HOURS[price.period];
}

/** A partitionable flavour sells any part of it: at least `min`, in multiples of `step` above it. */
export interface PartitionablePolicy {
  readonly kind: 'partitionable';
  readonly min: RearResources;
  readonly step: RearResources;
}

/** An aggregatable flavour sells whole units of `unit`, `minCount` to `maxCount` of them at once. */
export interface AggregatablePolicy {
  readonly kind: 'aggregatable';
  readonly unit: RearResources;
  readonly minCount: number;
  readonly maxCount: number;
}

export type FlavourPolicy = PartitionablePolicy | AggregatablePolicy;

export interface Owner {
  /** The provider's cluster id on the federation bus (FLUIDOS nodeID). */
  readonly cluster: string;
  /** The domain: the clusters behind one supernode. */
  readonly domain: string;
  /** Where the provider's REST routes answer (FLUIDOS ip). */
  readonly address: string;
}

export interface Flavour {
  readonly id: string;
  readonly type: string;
  readonly architecture: string;
  /** Partitionable: everything on sale; aggregatable: one unit. */
  readonly characteristics: RearResources;
  readonly policy: FlavourPolicy;
  /** Aggregatable: how many units are on sale now. */
  readonly units?: number;
  readonly owner: Owner;
  /** Price of the whole characteristics (one unit when aggregatable). */
  readonly price: Price;
  readonly available: boolean;
}

/** What a buyer takes of a flavour: a partition (partitionable) or a number of units (aggregatable). */
export interface Take {
  readonly partition?: RearResources;
  readonly units?: number;
}

export interface Transaction {
  readonly transactionId: string;
  readonly flavourId: string;
  readonly buyer: string;
  /** The buyer's own id for the request: a retransmitted RESERVE gets the same transaction. */
  readonly requestId?: string;
  readonly resources: RearResources;
  readonly flavour: Flavour;
  readonly price: Price;
  readonly startTime: number;
  readonly expiresAt: number;
}

export interface Contract {
  readonly contractId: string;
  readonly transactionId: string;
  readonly flavourId: string;
  readonly buyer: string;
  readonly seller: Owner;
  readonly resources: RearResources;
  readonly architecture: string;
  readonly price: Price;
  readonly startTime: number;
  readonly expiresAt: number;
  /** Where the buyer's pods run on the seller: the namespace kept for that buyer. */
  readonly peering: { readonly cluster: string; readonly namespace: string };
}
