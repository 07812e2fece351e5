// Bad DroneFederatedDeployments are refused by the real API server with a message naming the
// field (the controller never sees them), and a valid one is accepted as written.
import test from 'ava';
import { sharedKube, freshNamespace } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { twoComponentApp } from './support.ts';

type Body = { metadata: Record<string, unknown>; spec: { components: Array<Record<string, unknown>> } & Record<string, unknown> };

async function create(namespace: string, body: Body): Promise<string> {
  const kube = await sharedKube();
  try {
    await kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'dronefederateddeployments', body: { ...body, metadata: { ...body.metadata, namespace } } });
    return 'accepted';
  } catch (err) {
    return String((err as { body?: unknown }).body ?? err);
  }
}

function app(name: string): Body {
  return twoComponentApp(name) as unknown as Body;
}

test('the API server accepts a valid deployment and refuses each class of mistake, naming the field', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const ns = await freshNamespace(t, kube, 'dfd');
  t.is(await create(ns, app('ok')), 'accepted');

  const unknownDependency = app('dep');
  unknownDependency.spec.components[0] = { ...unknownDependency.spec.components[0], bootDependencies: ['cache'] };
  t.regex(await create(ns, unknownDependency), /every bootDependency must name another component of this deployment/);

  const badName = app('name');
  badName.spec.components[1] = { ...badName.spec.components[1], name: 'DB_1' };
  t.regex(await create(ns, badName), /spec\.components\[1\]\.name/);

  const noTemplate = app('template');
  noTemplate.spec.components[0] = Object.fromEntries(Object.entries(noTemplate.spec.components[0] ?? {}).filter(([k]) => k !== 'template'));
  t.regex(await create(ns, noTemplate), /spec\.components\[0\]\.template: Required value/);

  const badPlacement = app('placement');
  badPlacement.spec.placement = { clusters: { allowed: ['Edge 2'] } };
  t.regex(await create(ns, badPlacement), /spec\.placement\.clusters\.allowed\[0\]/);

  const empty = app('empty');
  empty.spec.components = [];
  t.regex(await create(ns, empty), /spec\.components/);
});
