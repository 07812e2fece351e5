// The provider's Flavor resources on a real control plane follow what is on sale: a reservation
// replaces the whole flavour by the reduced one, its expiry brings the whole one back.
import test from 'ava';
import type { KubernetesListObject } from '@kubernetes/client-node';
import { KubeClient } from '../../shared/kube/client.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { FlavorSpec } from '../../shared/crds/rear.ts';
import { FLAVOR_LABEL, FlavorPublisher } from '../../controller/rear/flavor-publisher.ts';
import { Market } from '../../controller/rear/market.ts';
import { sharedKube, uniqueName } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { kubectl } from '../support/kubectl.ts';
import { keyringFor } from '../drone/support/keys.ts';
import { partitionable, r, slice, terms } from './fixtures.ts';

test('Flavor resources follow the flavours on sale through a reservation and its expiry', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  t.is((await kubectl(kube.kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/flavors.shifu.edgenesis.io'])).code, 0);
  const cluster = uniqueName('prov');
  const client = KubeClient.fromKubeconfig(kube.kubeconfigPath);
  t.teardown(async () => {
    await kubectl(kube.kubeconfigPath, ['delete', 'flavors', '-l', `${FLAVOR_LABEL}=${cluster}`]);
    client.close();
  });
  const clock = { now: 0 };
  const market = new Market({ config: { ...partitionable, owner: { ...partitionable.owner, cluster } }, terms, slice: () => slice, clock: () => clock.now, keyring: keyringFor(cluster, [], true) });
  const publisher = new FlavorPublisher(client, cluster);
  const listed = async (): Promise<Array<{ name: string; spec: FlavorSpec }>> => {
    const list = await client.request<KubernetesListObject<{ metadata: { name: string }; spec: FlavorSpec }>>('GET', `/apis/${API_VERSION}/flavors`, { query: { labelSelector: `${FLAVOR_LABEL}=${cluster}` } });
    return list.items.map((i) => ({ name: i.metadata.name, spec: i.spec }));
  };

  await publisher.sync(market.flavours());
  const [whole, ...none] = await listed();
  t.is(none.length, 0);
  t.like(whole?.spec, { characteristics: { cpu: '4000m', memory: '8192Mi', pods: '20' }, owner: { nodeID: cluster, domain: 'domain-b' }, price: { amount: '0.24', currency: 'EUR', period: 'hourly' }, availability: true });
  t.like(whole?.spec.policy, { partitionable: { min: { cpu: '500m' }, step: { cpu: '250m' } } });

  await market.reserve({ flavourId: whole?.name ?? '', buyer: 'cons-1', take: { partition: r(1000, 1024, 2) } });
  await publisher.sync(market.flavours());
  const reduced = await listed();
  t.is(reduced.length, 1);
  t.not(reduced[0]?.name, whole?.name, 'the old flavour is deleted, a reduced one advertised');
  t.is(reduced[0]?.spec.characteristics.cpu, '3000m');

  clock.now += terms.reservationMs;
  await market.sweep();
  await publisher.sync(market.flavours());
  t.deepEqual((await listed()).map((f) => f.name), [whole?.name], 'restored on expiry');
  const printed = await kubectl(kube.kubeconfigPath, ['get', 'flavors', '-l', `${FLAVOR_LABEL}=${cluster}`]);
  t.regex(printed.stdout, /K8Slice\s+amd64\s+4000m\s+8192Mi\s+0\.24\s+true/);
});
