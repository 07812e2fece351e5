// Which API servers the CLI reaches through the environment's proxy, as kubectl decides (pure).
import test from 'ava';
import { proxyFromEnvironment } from '../../cli/proxy-env.ts';

const PROXY = { HTTPS_PROXY: 'http://proxy.corp:3128' };
const cases: ReadonlyArray<[string, NodeJS.ProcessEnv, string | undefined]> = [
  ['https://k8s.corp:6443', PROXY, 'http://proxy.corp:3128'],
  ['https://k8s.corp:6443', { https_proxy: 'proxy.corp:3128' }, 'http://proxy.corp:3128'],
  ['http://k8s.corp:8080', PROXY, undefined],
  ['http://k8s.corp:8080', { HTTP_PROXY: 'http://p:1' }, 'http://p:1'],
  ['https://k8s.corp:6443', {}, undefined],
  ['https://127.0.0.1:6443', PROXY, undefined],
  ['https://localhost:6443', PROXY, undefined],
  ['https://[::1]:6443', PROXY, undefined],
  ['https://k8s.corp:6443', { ...PROXY, NO_PROXY: 'corp' }, undefined],
  ['https://k8s.corp:6443', { ...PROXY, NO_PROXY: '.corp' }, undefined],
  ['https://k8s.corp:6443', { ...PROXY, NO_PROXY: '*.corp' }, undefined],
  ['https://k8s.corp:6443', { ...PROXY, no_proxy: 'other.corp, k8s.corp' }, undefined],
  ['https://k8s.corp:6443', { ...PROXY, NO_PROXY: 's.corp' }, 'http://proxy.corp:3128'],
  ['https://k8s.corp:6443', { ...PROXY, NO_PROXY: 'k8s.corp:443' }, 'http://proxy.corp:3128'],
  ['https://k8s.corp:6443', { ...PROXY, NO_PROXY: 'k8s.corp:6443' }, undefined],
  ['https://10.1.2.3:6443', { ...PROXY, NO_PROXY: '10.0.0.0/8' }, undefined],
  ['https://11.1.2.3:6443', { ...PROXY, NO_PROXY: '10.0.0.0/8' }, 'http://proxy.corp:3128'],
  ['https://10.1.2.3:6443', { ...PROXY, NO_PROXY: '10.1.2.3' }, undefined],
  ['https://k8s.corp:6443', { ...PROXY, NO_PROXY: '*' }, undefined],
];

for (const [server, env, expected] of cases) {
  test(`${server} with ${JSON.stringify(env)} → ${expected ?? 'direct'}`, (t) => {
    t.is(proxyFromEnvironment(server, env), expected);
  });
}
