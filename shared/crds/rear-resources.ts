// REAR's custom resources (shared/crds/rear.ts): names, scope and printer columns.
import type { PrinterColumn, ResourceDefinition } from './resources.ts';
import { AllocationSpec, AllocationStatus, ContractSpec, ContractStatus, FlavorSpec, FlavorStatus, PeeringCandidateSpec, PeeringCandidateStatus, ReservationSpec, ReservationStatus, SolverSpec, SolverStatus, TransactionSpec, TransactionStatus } from './rear.ts';

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export const FLAVOR: ResourceDefinition = {
  kind: 'Flavor', plural: 'flavors', singular: 'flavor', shortNames: ['flv'], scope: 'Cluster',
  description: 'What this cluster sells under REAR: a part of its free slice, with a policy and a price.',
  spec: FlavorSpec, status: FlavorStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.flavorType' },
    { name: 'Arch', type: 'string', jsonPath: '.spec.architecture' },
    { name: 'CPU', type: 'string', jsonPath: '.spec.characteristics.cpu' },
    { name: 'Memory', type: 'string', jsonPath: '.spec.characteristics.memory' },
    { name: 'Units', type: 'integer', jsonPath: '.spec.units' },
    { name: 'Price', type: 'string', jsonPath: '.spec.price.amount' },
    { name: 'Available', type: 'boolean', jsonPath: '.spec.availability' },
    AGE,
  ],
};

export const SOLVER: ResourceDefinition = {
  kind: 'Solver', plural: 'solvers', singular: 'solver', shortNames: ['slv'], scope: 'Namespaced',
  description: 'An intent: capacity to buy for a period (local first, then known peering candidates, then discovery).',
  spec: SolverSpec, status: SolverStatus,
  printerColumns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Reason', type: 'string', jsonPath: '.status.reason', description: 'The step it waits on or failed at.' },
    { name: 'Provider', type: 'string', jsonPath: '.status.provider' },
    { name: 'Contract', type: 'string', jsonPath: '.status.contractID' },
    { name: 'Node', type: 'string', jsonPath: '.status.virtualNode' },
    { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
    AGE,
  ],
};

export const PEERING_CANDIDATE: ResourceDefinition = {
  kind: 'PeeringCandidate', plural: 'peeringcandidates', singular: 'peeringcandidate', shortNames: ['pc'], scope: 'Namespaced',
  description: 'A flavour discovery found, kept until it expires.',
  spec: PeeringCandidateSpec, status: PeeringCandidateStatus,
  printerColumns: [
    { name: 'Provider', type: 'string', jsonPath: '.spec.flavor.owner.nodeID' },
    { name: 'Domain', type: 'string', jsonPath: '.spec.flavor.owner.domain' },
    { name: 'Via', type: 'string', jsonPath: '.spec.via' },
    { name: 'Reserved By', type: 'string', jsonPath: '.status.reservedBy' },
    { name: 'Expires', type: 'date', jsonPath: '.spec.expiresAt' },
    AGE,
  ],
};

export const RESERVATION: ResourceDefinition = {
  kind: 'Reservation', plural: 'reservations', singular: 'reservation', shortNames: ['rsv'], scope: 'Namespaced',
  description: 'The buyer\'s record of a RESERVE_FLAVOUR and its purchase.',
  spec: ReservationSpec, status: ReservationStatus,
  printerColumns: [
    { name: 'Seller', type: 'string', jsonPath: '.spec.seller' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Transaction', type: 'string', jsonPath: '.status.transactionID' },
    { name: 'Expires', type: 'date', jsonPath: '.status.expiresAt' },
    AGE,
  ],
};

export const TRANSACTION: ResourceDefinition = {
  kind: 'Transaction', plural: 'transactions', singular: 'transaction', shortNames: ['txn'], scope: 'Namespaced',
  description: 'The seller\'s record of a reservation waiting for its purchase; its resources are held until it expires.',
  spec: TransactionSpec, status: TransactionStatus,
  printerColumns: [
    { name: 'Buyer', type: 'string', jsonPath: '.spec.buyer' },
    { name: 'Flavor', type: 'string', jsonPath: '.spec.flavorID' },
    { name: 'Expires', type: 'date', jsonPath: '.spec.expiresAt' },
    AGE,
  ],
};

export const CONTRACT: ResourceDefinition = {
  kind: 'Contract', plural: 'contracts', singular: 'contract', shortNames: ['ctr'], scope: 'Namespaced',
  description: 'Capacity sold for a period, signed by seller and buyer.',
  spec: ContractSpec, status: ContractStatus,
  printerColumns: [
    { name: 'Buyer', type: 'string', jsonPath: '.spec.buyer' },
    { name: 'Seller', type: 'string', jsonPath: '.spec.seller.nodeID' },
    { name: 'CPU', type: 'string', jsonPath: '.spec.resources.cpu' },
    { name: 'Memory', type: 'string', jsonPath: '.spec.resources.memory' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Verified', type: 'boolean', jsonPath: '.status.verified' },
    { name: 'Expires', type: 'date', jsonPath: '.spec.expiresAt' },
    AGE,
  ],
};

export const ALLOCATION: ResourceDefinition = {
  kind: 'Allocation', plural: 'allocations', singular: 'allocation', shortNames: ['alloc'], scope: 'Namespaced',
  description: 'What a contract gives: a virtual node on the buyer, resources held on the seller.',
  spec: AllocationSpec, status: AllocationStatus,
  printerColumns: [
    { name: 'Contract', type: 'string', jsonPath: '.spec.contract' },
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Node', type: 'string', jsonPath: '.spec.nodeName' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    AGE,
  ],
};

export const REAR_RESOURCES: readonly ResourceDefinition[] = [FLAVOR, SOLVER, PEERING_CANDIDATE, RESERVATION, TRANSACTION, CONTRACT, ALLOCATION];
