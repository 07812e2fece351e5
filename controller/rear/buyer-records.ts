// The buyer's records of a purchase (thin shell): its copy of the Contract (both signatures
// checked, in the Solver's namespace) and an Allocation for it, Inactive until a virtual node
// for the contract is Ready (controller/rear/README.md, "Peering as a virtual node"). Then the
// countersignature goes back to the seller, which verifies it and keeps it on its own Contract.
import type { KubeClient } from '../../shared/kube/client.ts';
import type { Keyring } from '../../shared/bus/signing.ts';
import { errorMessage } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import { contractObject, SELLER_LABEL } from './book-objects.ts';
import { verifyContract, type SignedContract } from './contract-signing.ts';
import type { RearNode } from './rear-node.ts';
import { toQuantities } from './quantities.ts';

export const BUYER_LABEL = 'rear.edgeshifu.io/buyer';
export const SOLVER_LABEL = 'rear.edgeshifu.io/solver';
const APPLY = { contentType: 'application/apply-patch+yaml', query: { fieldManager: 'edgeshifu-rear', force: true } } as const;
const MERGE = 'application/merge-patch+json';

export interface BuyerRecordsOptions {
  readonly client: KubeClient;
  readonly keyring: Keyring;
  readonly node: RearNode;
  readonly self: string;
  readonly logger: Logger;
}

export class BuyerRecords {
  private readonly o: BuyerRecordsOptions;

  constructor(options: BuyerRecordsOptions) {
    this.o = options;
  }

  private path(namespace: string, plural: string, name: string): string {
    return `/apis/${API_VERSION}/namespaces/${namespace}/${plural}/${name}`;
  }

  /** Writes the Contract copy and its Allocation, then carries the countersignature to the seller. */
  async bought(namespace: string, solver: string, signed: SignedContract): Promise<void> {
    const { client, keyring, self } = this.o;
    const { contract } = signed;
    const id = contract.contractId;
    const labels = { [BUYER_LABEL]: self, [SOLVER_LABEL]: solver };
    const copy = { ...contractObject(contract, signed.signatures, namespace), metadata: { name: id, namespace, labels: { ...labels, [SELLER_LABEL]: contract.seller.cluster } } };
    await client.request('PATCH', this.path(namespace, 'contracts', id), { body: copy, ...APPLY });
    const verified = verifyContract(keyring, signed, self);
    await this.contractStatus(namespace, id, { phase: 'Active', verified, message: verified ? 'signed by both sides; countersignature on its way to the seller' : 'a signature does not verify' });
    const allocation = { apiVersion: API_VERSION, kind: 'Allocation', metadata: { name: id, namespace, labels }, spec: { contract: id, type: 'VirtualNode', resources: toQuantities(contract.resources) } };
    await client.request('PATCH', this.path(namespace, 'allocations', id), { body: allocation, ...APPLY });
    await client.request('PATCH', `${this.path(namespace, 'allocations', id)}/status`, { body: { status: { phase: 'Inactive', message: 'waiting for the virtual node of the contract' } }, contentType: MERGE });
    try {
      await this.o.node.countersign(signed);
      await this.contractStatus(namespace, id, { phase: 'Active', verified, message: 'signed by both sides; the seller holds the countersignature' });
    } catch (err) {
      this.o.logger.warn({ contract: id, err: errorMessage(err) }, 'countersignature not delivered to the seller');
      await this.contractStatus(namespace, id, { phase: 'Active', verified, message: `the seller did not take the countersignature: ${errorMessage(err)}`.slice(0, 1024) });
    }
  }

  private async contractStatus(namespace: string, id: string, status: Record<string, unknown>): Promise<void> {
    await this.o.client.request('PATCH', `${this.path(namespace, 'contracts', id)}/status`, { body: { status }, contentType: MERGE });
  }
}
