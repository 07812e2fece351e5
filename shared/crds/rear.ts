// The Kubernetes side of REAR (controller/rear/README.md): what a provider sells (Flavor), what a
// consumer asks for (Solver, the intent), what discovery found (PeeringCandidate), the buyer's and
// seller's records of a sale (Reservation, Transaction, Contract) and what a contract gives the
// consumer (Allocation, a virtual node). Phases end Solved or Failed, as in FLUIDOS's node (a
// Solver whose contract ran its time is Ended).
import { Type, type Static } from '@sinclair/typebox';
import { celRules, Conditions, Quantity, StringEnum, Timestamp } from './schema.ts';

const ClusterId = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' });
const Id = (description: string): ReturnType<typeof Type.String> => Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$', description });
const Message = Type.Optional(Type.String({ maxLength: 1024 }));

/** cpu, memory, pods, ephemeral storage and gpus, as Kubernetes quantities. */
export const RearQuantities = Type.Object({
  cpu: Quantity(),
  memory: Quantity(),
  pods: Type.Optional(Quantity()),
  storage: Type.Optional(Quantity({ description: 'Ephemeral storage.' })),
  gpu: Type.Optional(Quantity()),
});
export type RearQuantities = Static<typeof RearQuantities>;

export const Price = Type.Object({
  amount: Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'A decimal, as FLUIDOS writes it.' }),
  currency: Type.String({ minLength: 3, maxLength: 3, pattern: '^[A-Z]{3}$' }),
  period: StringEnum(['hourly', 'daily', 'monthly']),
});

export const Owner = Type.Object({
  domain: Type.String({ minLength: 1, maxLength: 253, description: 'The clusters behind one supernode.' }),
  nodeID: ClusterId,
  address: Type.String({ maxLength: 300, description: 'Where the provider\'s REAR routes answer.' }),
});

export const FlavorPolicy = Type.Object({
  partitionable: Type.Optional(Type.Object({ min: RearQuantities, step: RearQuantities })),
  aggregatable: Type.Optional(Type.Object({ minCount: Type.Integer({ minimum: 1 }), maxCount: Type.Integer({ minimum: 1 }) })),
}, celRules({ rule: 'has(self.partitionable) != has(self.aggregatable)', message: 'a policy is either partitionable or aggregatable' }));

export const FlavorSpec = Type.Object({
  flavorID: Id('Changes whenever what is on sale changes.'),
  flavorType: Type.String({ minLength: 1, maxLength: 63 }),
  architecture: Type.String({ minLength: 1, maxLength: 63 }),
  characteristics: RearQuantities,
  policy: FlavorPolicy,
  units: Type.Optional(Type.Integer({ minimum: 0, description: 'Aggregatable: units of the characteristics on sale.' })),
  owner: Owner,
  price: Price,
  availability: Type.Boolean(),
});
export type FlavorSpec = Static<typeof FlavorSpec>;
export const FlavorStatus = Type.Object({ observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })) });

export const SOLVER_PHASES = ['Pending', 'Discovering', 'Reserving', 'Purchasing', 'Peering', 'Solved', 'Ended', 'Failed'] as const;
export const SolverSpec = Type.Object({
  resources: RearQuantities,
  architecture: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  flavorType: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  durationSeconds: Type.Integer({ minimum: 60, maximum: 31_536_000, description: 'How long the capacity is bought for.' }),
  maxPrice: Type.Optional(Price),
  providers: Type.Optional(Type.Object({
    allowed: Type.Optional(Type.Array(ClusterId, { maxItems: 256, description: 'When set, only these providers.' })),
    denied: Type.Optional(Type.Array(ClusterId, { maxItems: 256 })),
  })),
  remoteOnly: Type.Optional(Type.Boolean({ description: 'Buy even when this cluster has room.' })),
  activeDeadlineSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Seconds from creation after which a Solver whose discovery still finds nothing stops trying (Failed, DeadlineExceeded). Unset: it keeps trying, with a capped backoff.' })),
});
export type SolverSpec = Static<typeof SolverSpec>;
export const SolverStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  phase: Type.Optional(StringEnum(SOLVER_PHASES)),
  reason: Type.Optional(Type.String({ maxLength: 128, description: 'The step it waits on or failed at.' })),
  message: Message,
  attempts: Type.Optional(Type.Integer({ minimum: 0 })),
  flavorID: Type.Optional(Type.String({ maxLength: 253 })),
  provider: Type.Optional(ClusterId),
  providerDomain: Type.Optional(Type.String({ maxLength: 253 })),
  transactionID: Type.Optional(Type.String({ maxLength: 253 })),
  contractID: Type.Optional(Type.String({ maxLength: 253 })),
  virtualNode: Type.Optional(Type.String({ maxLength: 253 })),
  discoveryAttempts: Type.Optional(Type.Integer({ minimum: 0, description: 'Discoveries in a row that found nothing.' })),
  nextAttemptTime: Type.Optional(Type.String({ format: 'date-time', description: 'When the next discovery is due, while Pending with NoFlavourFound.' })),
  conditions: Type.Optional(Conditions),
});
export type SolverStatus = Static<typeof SolverStatus>;

export const PeeringCandidateSpec = Type.Object({
  flavor: FlavorSpec,
  via: ClusterId,
  expiresAt: Timestamp(),
});
export const PeeringCandidateStatus = Type.Object({ reservedBy: Type.Optional(Type.String({ maxLength: 317, description: 'The Solver whose reservation holds it, <namespace>/<name>; absent when none does.' })) });

export const RESERVATION_PHASES = ['Reserving', 'Reserved', 'Purchased', 'Refused', 'Expired'] as const;
export const ReservationSpec = Type.Object({
  solver: Id('The Solver this reservation serves.'),
  flavorID: Id('The flavour reserved.'),
  seller: ClusterId,
  partition: Type.Optional(RearQuantities),
  units: Type.Optional(Type.Integer({ minimum: 1 })),
  requestID: Type.Optional(Type.String({ maxLength: 253, description: 'The RESERVE\'s request id, written before it is sent: a restarted buyer sends it again and the seller answers with the same transaction.' })),
});
export const ReservationStatus = Type.Object({
  phase: Type.Optional(StringEnum(RESERVATION_PHASES)),
  transactionID: Type.Optional(Type.String({ maxLength: 253 })),
  expiresAt: Type.Optional(Timestamp()),
  message: Message,
});

export const TransactionSpec = Type.Object({
  transactionID: Id('The seller\'s id.'),
  flavorID: Id('The flavour reserved.'),
  buyer: ClusterId,
  requestID: Type.Optional(Type.String({ maxLength: 253 })),
  resources: RearQuantities,
  price: Price,
  startTime: Timestamp(),
  expiresAt: Timestamp(),
});
export const TransactionStatus = Type.Object({ message: Message });

export const CONTRACT_PHASES = ['Active', 'Ended', 'Withdrawn'] as const;
export const ContractSpec = Type.Object({
  contractID: Id('The seller\'s id.'),
  transactionID: Id('The transaction it was bought by.'),
  flavorID: Id('The flavour bought.'),
  buyer: ClusterId,
  seller: Owner,
  resources: RearQuantities,
  architecture: Type.String({ minLength: 1, maxLength: 63 }),
  price: Price,
  startTime: Timestamp(),
  expiresAt: Timestamp(),
  peering: Type.Object({ cluster: ClusterId, namespace: Type.String({ minLength: 1, maxLength: 63 }) }, { description: 'Where the buyer\'s pods run: the namespace kept for it.' }),
  signatures: Type.Object({
    seller: Type.String({ minLength: 1, maxLength: 200, description: 'Ed25519, base64, over the contract\'s terms.' }),
    buyer: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  }),
});
export type ContractSpec = Static<typeof ContractSpec>;
export const ContractStatus = Type.Object({
  phase: Type.Optional(StringEnum(CONTRACT_PHASES)),
  verified: Type.Optional(Type.Boolean({ description: 'Both signatures checked against the parties\' keys.' })),
  message: Message,
});

export const ALLOCATION_PHASES = ['Inactive', 'Active', 'Released'] as const;
export const AllocationSpec = Type.Object({
  contract: Id('The Contract it is made for.'),
  type: StringEnum(['VirtualNode', 'Node'], { description: 'VirtualNode on the buyer, Node on the seller.' }),
  nodeName: Type.Optional(Type.String({ maxLength: 253 })),
  resources: RearQuantities,
});
export const AllocationStatus = Type.Object({
  phase: Type.Optional(StringEnum(ALLOCATION_PHASES)),
  message: Message,
});
