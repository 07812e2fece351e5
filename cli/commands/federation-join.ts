// `edgeshifu federation join <cluster>`: everything one member needs to join its neighbours over
// an encrypted, verified bus, from the federation's folder (made on first use: the CA and the key
// every password and signing key is derived from; cli/federation-pki.ts). Prints the Kubernetes
// objects as YAML, or applies them with --apply. Run once per member, with the same folder.
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { flag, listOption, stringOption, UsageError, type CommandSpec } from '../args.ts';
import { crdMissing } from '../cluster.ts';
import type { CliContext } from '../context.ts';
import { applyPath, memberObjects, neighbourOption, SYSTEM_NAMESPACE } from '../federation-objects.ts';
import { federationMaterial, issueMemberCertificate } from '../federation-pki.ts';

export const spec: CommandSpec = {
  name: 'federation join',
  summary: 'issue a member\'s broker certificate, logins and signing key, and its Federations to its neighbours',
  details: [
    'The folder (--dir) holds the federation CA and key: the first run makes it; keep it private and use it for every member.',
    `Objects go to ${SYSTEM_NAMESPACE} (Secrets) and the cluster (Federations); install the federation-member overlay first.`,
  ],
  positionals: [{ name: 'cluster', description: 'this member\'s cluster id (its EDGESHIFU_DRONE_CLUSTER)' }],
  options: {
    address: { type: 'string', multiple: true, value: 'host', description: 'host name or IP its neighbours reach its broker at (in its certificate)' },
    neighbour: { type: 'string', multiple: true, value: 'id=host[:port]', description: 'a neighbour and where its broker is (port 8883 by default)' },
    'allow-image': { type: 'string', multiple: true, value: 'prefix', description: 'an image prefix this member runs for its neighbours (none: it runs nothing for them)' },
    dir: { type: 'string', value: 'folder', default: './edgeshifu-federation', description: 'the federation\'s CA and key' },
    apply: { type: 'boolean', description: 'apply the objects to the cluster (--kubeconfig) instead of printing them' },
  },
  examples: [
    'edgeshifu federation join edge-1 --address edge-1.example --neighbour edge-2=edge-2.example --allow-image registry.example/shop/ --apply --kubeconfig edge-1.yaml',
    'edgeshifu federation join edge-2 --address 10.0.0.7 --neighbour edge-1=edge-1.example > edge-2-federation.yaml',
  ],
};

export async function run(ctx: CliContext): Promise<number> {
  const [member = ''] = ctx.invocation.positionals;
  const addresses = listOption(ctx.invocation, 'address');
  if (addresses.length === 0) throw new UsageError('--address is required: the host name or IP neighbours reach this member\'s broker at', spec.name);
  const neighbours = listOption(ctx.invocation, 'neighbour').map(neighbourOption);
  const dir = resolve(stringOption(ctx.invocation, 'dir') ?? './edgeshifu-federation');
  const { material, created } = federationMaterial(dir);
  if (created) ctx.note(`made the federation CA and key in ${dir}: keep this folder private, and use it for every member`);
  const allowedImages = listOption(ctx.invocation, 'allow-image');
  if (allowedImages.length === 0) ctx.note('no --allow-image: this member will run nothing for its neighbours until its Federations list image prefixes (spec.hosting.allowedImages)');
  const objects = memberObjects(material, member, issueMemberCertificate(material, member, addresses), { neighbours, allowedImages });
  if (!flag(ctx.invocation, 'apply')) {
    ctx.print(objects.map((o) => stringify(o)).join('---\n'));
    return 0;
  }
  const cluster = ctx.cluster();
  for (const object of objects) {
    await cluster.apply(applyPath(object), object, `apply ${object.kind} ${object.metadata.name}`)
      .catch((err: unknown) => { throw (object.kind === 'Federation' ? crdMissing(err, object.kind) : undefined) ?? err; });
  }
  ctx.print(`${member} joined ${neighbours.map((n) => n.cluster).join(', ') || 'no neighbour yet'} on ${cluster.server}: ${String(objects.length)} objects applied`);
  return 0;
}
