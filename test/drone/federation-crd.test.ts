// The Federation CRD against the real API server, and its translation into relay links.
import test from 'ava';
import { sharedKube, uniqueName, type Kube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { toKubeError } from '../../shared/kube/errors.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { neighbourOf, weightsOf, type Federation } from '../../controller/drone/neighbours.ts';

let kube: Kube;
test.before(async () => {
  kube = await sharedKube();
  await installCrds(kube);
});

function federation(name: string, spec: Record<string, unknown>): { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, unknown> } {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'Federation', metadata: { name }, spec };
}

const good = { clusterId: 'edge-2', brokerUrl: 'mqtts://edge-2.example:8883', credentialsSecretRef: { name: 'edge-2-bus', namespace: 'edgeshifu' }, weight: 3 };

test('a Federation naming a neighbour\'s broker, credentials Secret and weight is accepted', async (t) => {
  const name = uniqueName('fed');
  t.teardown(() => kube.custom.deleteClusterCustomObject({ group: GROUP, version: VERSION, plural: 'federations', name }).catch(() => undefined));
  const created = await kube.custom.createClusterCustomObject({ group: GROUP, version: VERSION, plural: 'federations', body: federation(name, good), fieldValidation: 'Strict' }) as Federation;
  t.is(created.spec.clusterId, 'edge-2');
  t.is(created.spec.weight, 3);
});

const bad = [
  { what: 'a broker URL that is not MQTT', spec: { ...good, brokerUrl: 'http://edge-2:80' }, field: /spec\.brokerUrl/ },
  { what: 'a cluster id with capitals', spec: { ...good, clusterId: 'Edge_2' }, field: /spec\.clusterId/ },
  { what: 'a zero weight', spec: { ...good, weight: 0 }, field: /spec\.weight/ },
  { what: 'its neighbour\'s work let run privileged', spec: { ...good, hosting: { podSecurity: 'privileged', allowedImages: ['registry.example/'] } }, field: /spec\.hosting\.podSecurity: Unsupported value: "privileged"/ },
  { what: 'no credentials Secret', spec: { clusterId: 'edge-2', brokerUrl: 'mqtts://x:8883' }, field: /spec\.credentialsSecretRef/ },
];
for (const b of bad) {
  test(`a Federation with ${b.what} is refused naming the field`, async (t) => {
    const err = await kube.custom.createClusterCustomObject({ group: GROUP, version: VERSION, plural: 'federations', body: federation(uniqueName('fed'), b.spec), fieldValidation: 'Strict' }).then(() => undefined, (e: unknown) => toKubeError(e, 'create'));
    t.truthy(err, 'the API server accepted it');
    t.regex(err?.message ?? '', b.field);
  });
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const fed = federation('edge-2', good) as unknown as Federation;

test('a Federation and its Secret become a relay link and a weight', (t) => {
  t.deepEqual(neighbourOf(fed, { username: b64('edge-1'), password: b64('s3cret'), 'ca.crt': b64('PEM') }), { cluster: 'edge-2', url: 'mqtts://edge-2.example:8883', username: 'edge-1', password: 's3cret', tls: { ca: 'PEM' } });
  t.deepEqual([...weightsOf([fed])], [['edge-2', 3]]);
});

test('a missing Secret or key is reported naming the Secret to fix', (t) => {
  t.true(isEdgeshifuError(t.throws(() => neighbourOf(fed, undefined)), 'not-found'));
  const err = t.throws(() => neighbourOf(fed, { username: b64('edge-1') }));
  t.true(isEdgeshifuError(err, 'invalid'));
  t.regex(err.message, /Secret edgeshifu\/edge-2-bus must have the keys username and password/);
});
