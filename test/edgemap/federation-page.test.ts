// The edgeMap page of a federated cluster in real Chromium, fed by the real controller of cluster a
// (its own API server) federated with b (another API server): b appears with its connection
// state, the components a offloaded to b are linked to b, every device's and vertex's name and
// state is drawn without a click, the search box centres the map on a device, and the side list
// holds the devices with their phase. b's controller then stops, and the page shows b unreachable.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildEdgeMapPage } from '../../edgemap/build-page.ts';
import type { Link, Vertex } from '../../edgemap/index.ts';
import { waitFor } from '../support/wait.ts';
import { kubectl } from '../support/kubectl.ts';
import { shifuExample } from '../support/shifu/index.ts';
import { createDevice, thermometer } from '../controller/fixtures.ts';
import { createApp, readApp, startFederation, twoComponentApp } from '../offload/support.ts';
import { openBrowser } from './browser.ts';
import { serve } from './serve.ts';

interface PageState {
  seq: number; state: string; selected?: string; vertexCount: number; drawnLabels: string[];
  vertex(key: string): Vertex | undefined;
  link(a: string, b: string): Link | undefined;
  position(key: string): { x: number; y: number } | undefined;
}
type PageGlobal = { edgeMapPage?: PageState };

let pageDir = '';
test.before(async () => {
  pageDir = await mkdtemp(join(tmpdir(), 'edgemap-page-'));
  await buildEdgeMapPage(pageDir);
});
test.after.always(async () => { await rm(pageDir, { recursive: true, force: true }); });

test.serial('the page shows the neighbour with its state, the offloaded components linked to it, every label, search centring and the device list', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '4', memory: '8Gi' }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  // a device on a, as a Shifu user registers it
  await a.kube.core.createNamespace({ body: { metadata: { name: 'devices' } } });
  const [configMap] = shifuExample('thermometer-configmap');
  const applied = await kubectl(a.kube.kubeconfigPath, ['apply', '-f', '-'], stringify(configMap));
  t.is(applied.code, 0, applied.stderr);
  await createDevice(a.kube, thermometer('thermo'));
  await createApp(a.kube, twoComponentApp('shop'));
  await waitFor('shop to be RUNNING on b', async () => ((await readApp(a.kube, 'shop'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 180_000 });

  // the controller's own map: b from the Federation, shop's components linked to it
  const map = a.controller.map;
  await waitFor('b Peered and both components LAUNCHED on a\'s edgeMap', () => {
    const peered = map.vertex('b')?.attributes.phase === 'Peered';
    const launched = ['api', 'db'].every((c) => map.vertex(`apps/shop/${c}`)?.attributes.phase === 'LAUNCHED' && map.linkBetween(`apps/shop/${c}`, 'b')?.type === 'Offload');
    return peered && launched && map.has('devices/thermo') ? true : undefined;
  }, { timeoutMs: 60_000 });

  // what changes the components after they were seen LAUNCHED (a status rewrite would show here)
  const later: string[] = [];
  t.teardown(map.subscribe((change) => { const text = JSON.stringify(change); if (text.includes('apps/shop/')) later.push(text.slice(0, 300)); }));
  const served = await serve(map, { pageDir });
  t.teardown(() => served.close());
  const browser = await openBrowser(served.url);
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.goto(`${served.url}/edgemap/`);
  const pageState = (): PageState | undefined => (globalThis as PageGlobal).edgeMapPage;
  await page.waitForFunction((n) => (globalThis as PageGlobal).edgeMapPage?.vertexCount === n, map.order, { timeout: 30_000 });
  t.true(map.order < 200);

  // the neighbour and its state, the offloaded components and their links, as the page holds them
  t.like(await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.vertex('b')), { kind: 'remoteCluster', attributes: { phase: 'Peered', broker: `mqtt://127.0.0.1:${String(b.port)}` } });
  for (const c of ['api', 'db']) {
    // the page follows the map's stream: a status rewrite on the way (seen once at load 15) arrives as one more change
    await page.waitForFunction((k) => (globalThis as PageGlobal).edgeMapPage?.vertex(k)?.attributes.phase === 'LAUNCHED', `apps/shop/${c}`, { timeout: 30_000 })
      .catch(() => undefined);
    t.like(await page.evaluate((k) => (globalThis as PageGlobal).edgeMapPage?.vertex(k), `apps/shop/${c}`), { kind: 'component', attributes: { cluster: 'b', phase: 'LAUNCHED' } });
    t.like(await page.evaluate((k) => (globalThis as PageGlobal).edgeMapPage?.link(k, 'b'), `apps/shop/${c}`), { type: 'Offload' });
  }

  if (later.length > 0) t.log(`component changes after LAUNCHED: ${later.join(' | ')}`);

  // every name and state drawn on the canvas, no click needed
  const device = map.vertex('devices/thermo');
  const devicePhase = device?.attributes.phase ?? 'Unknown';
  const expected: string[] = [];
  map.forEachVertex((v) => { expected.push(`${v.key} · ${v.attributes.phase ?? 'Unknown'}`); });
  t.true(expected.includes('b · Peered') && expected.includes('apps/shop/api · LAUNCHED') && expected.includes(`devices/thermo · ${devicePhase}`));
  await page.waitForFunction((labels) => labels.every((l) => (globalThis as PageGlobal).edgeMapPage?.drawnLabels.includes(l) === true), expected, { timeout: 15_000 })
    .catch(async () => { t.fail(`labels drawn: ${JSON.stringify(await page.evaluate(pageState))}`); });
  t.is(await page.locator('#panel').isHidden(), true, 'nothing was clicked');

  // the side list: the device with its phase
  t.deepEqual(await page.locator('#devices li').evaluateAll((items: Array<{ getAttribute(name: string): string | null }>) => items.map((i) => [i.getAttribute('data-key'), i.getAttribute('data-phase')])), [['devices/thermo', devicePhase]]);

  // search: the map centres on the device and selects it
  const before = await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.position('devices/thermo'));
  await page.locator('#search').fill('thermo');
  await page.locator('#search').press('Enter');
  await page.waitForFunction(() => (globalThis as PageGlobal).edgeMapPage?.selected === 'devices/thermo', undefined, { timeout: 15_000 });
  t.is(await page.locator('#search-result').getAttribute('data-found'), 'devices/thermo');
  t.is(await page.locator('#panel').getAttribute('data-key'), 'devices/thermo', 'the panel shows the device found');
  // the middle of the canvas as it is now (the panel that opened narrowed it)
  const middle = (): Promise<{ x: number; y: number }> => page.locator('#graph').evaluate((el: { getBoundingClientRect(): { width: number; height: number } }) => {
    const r = el.getBoundingClientRect();
    return { x: r.width / 2, y: r.height / 2 };
  });
  const centred = await waitFor('the device to be drawn mid-canvas', async () => {
    const [at, mid] = [await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.position('devices/thermo')), await middle()];
    return at !== undefined && Math.abs(at.x - mid.x) < 2 && Math.abs(at.y - mid.y) < 2 ? { at, mid } : undefined;
  }, { timeoutMs: 15_000 }).catch(() => undefined);
  t.not(centred, undefined, `before ${JSON.stringify(before)}, after ${JSON.stringify(await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.position('devices/thermo')))}, middle ${JSON.stringify(await middle())}`);
  t.true(before !== undefined && Math.hypot(before.x - (centred?.mid.x ?? 0), before.y - (centred?.mid.y ?? 0)) > 20, 'it was elsewhere before');
  await page.locator('#search').fill('no-such-device');
  await page.locator('#search').press('Enter');
  await page.waitForFunction(() => (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } | null } }).document.getElementById('search-result')?.textContent === 'nothing matches "no-such-device"', undefined, { timeout: 15_000 });

  // b's controller stops: its adverts end, a's Federation says so, and the page follows
  await b.controller.controller.stop();
  await page.waitForFunction(() => (globalThis as PageGlobal).edgeMapPage?.vertex('b')?.attributes.phase === 'Unreachable', undefined, { timeout: 60_000 });
  // the view is still on the device; the search box brings b back into it
  await page.locator('#search').fill('b');
  await page.locator('#search').press('Enter');
  await page.waitForFunction(() => (globalThis as PageGlobal).edgeMapPage?.drawnLabels.includes('b · Unreachable') === true, undefined, { timeout: 15_000 });
  t.regex(await page.locator('#panel').innerText(), /remoteCluster[\s\S]*Unreachable[\s\S]*no live slice advert from b/);
  t.deepEqual(browser.problems, []);
});
