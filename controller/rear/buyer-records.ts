// The buyer's records of a purchase (thin shell): its copy of the Contract (both signatures
// checked, in the Solver's namespace), then the countersignature carried to the seller, which
// verifies it and keeps it on its own Contract. The Allocation is not written here: the peering's
// node reconciler owns it (one writer, so no two applies fight over it).
import type { KubeClient } from '../../shared/kube/client.ts';
import type { Keyring } from '../../shared/bus/signing.ts';
import { errorMessage } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { KubernetesListObject } from '@kubernetes/client-node';
import { contractObject, SELLER_LABEL, type ContractObject } from './book-objects.ts';
import type { ContractEndedMessage } from './messages/index.ts';
import { verifyContract, type SignedContract } from './contract-signing.ts';
import type { RearNode } from './rear-node.ts';

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

  /** Writes the Contract copy, then carries the countersignature to the seller. */
  async bought(namespace: string, solver: string, signed: SignedContract): Promise<void> {
    const { client, keyring, self } = this.o;
    const { contract } = signed;
    const id = contract.contractId;
    const labels = { [BUYER_LABEL]: self, [SOLVER_LABEL]: solver };
    const copy = { ...contractObject(contract, signed.signatures, namespace), metadata: { name: id, namespace, labels: { ...labels, [SELLER_LABEL]: contract.seller.cluster } } };
    await client.request('PATCH', this.path(namespace, 'contracts', id), { body: copy, ...APPLY });
    const verified = verifyContract(keyring, signed, self);
    await this.contractStatus(namespace, id, { phase: 'Active', verified, message: verified ? 'signed by both sides; countersignature on its way to the seller' : 'a signature does not verify' });
    try {
      await this.o.node.countersign(signed);
      await this.contractStatus(namespace, id, { phase: 'Active', verified, message: 'signed by both sides; the seller holds the countersignature' });
    } catch (err) {
      this.o.logger.warn({ contract: id, err: errorMessage(err) }, 'countersignature not delivered to the seller');
      await this.contractStatus(namespace, id, { phase: 'Active', verified, message: `the seller did not take the countersignature: ${errorMessage(err)}`.slice(0, 1024) });
    }
  }

  /**
   * The seller says a contract ended before its time: the buyer's copy says so (the peering then drains its node and releases the Allocation).
   * Returns the Solver that held it, or undefined when no contract of that seller is known here.
   */
  async ended(m: ContractEndedMessage): Promise<{ namespace: string; solver: string } | undefined> {
    const list = await this.o.client.request<KubernetesListObject<ContractObject>>('GET', `/apis/${API_VERSION}/contracts`, { query: { labelSelector: `${BUYER_LABEL}=${this.o.self}` } });
    const copy = list.items.find((c) => c.spec.contractID === m.contractId && c.spec.seller.nodeID === m.seller);
    const namespace = copy?.metadata?.namespace;
    if (copy === undefined || namespace === undefined) return undefined;
    const phase = m.reason === 'withdrawn' ? 'Withdrawn' : 'Ended';
    await this.contractStatus(namespace, m.contractId, { phase, message: `${m.seller}: ${m.message}`.slice(0, 1024) });
    return { namespace, solver: copy.metadata?.labels?.[SOLVER_LABEL] ?? '' };
  }

  private async contractStatus(namespace: string, id: string, status: Record<string, unknown>): Promise<void> {
    await this.o.client.request('PATCH', `${this.path(namespace, 'contracts', id)}/status`, { body: { status }, contentType: MERGE });
  }
}
