// The edgeMap page in a real browser: vertices appear, server changes show up without reload, a
// click on a device shows its deviceShifu URL, and sigma's WebGL canvas really drew pixels.
import test from 'ava';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEdgeMapPage } from '../../edgemap/build-page.ts';
import { EdgeMap, LINK_TYPES, type DeviceAttributes } from '../../edgemap/index.ts';
import { LINK_COLOURS, PHASE_COLOURS } from '../../edgemap/style.ts';
import { countPixels, openBrowser } from './browser.ts';
import { plant } from './fixtures.ts';
import { serve } from './serve.ts';
import { waitFor } from '../support/wait.ts';

const OUTPUT = join(import.meta.dirname, '..', '..', 'test-output', 'edgemap');

interface PageState {
  seq: number; state: string; selected?: string; vertexCount: number; linkCount: number;
  vertex(key: string): { attributes: DeviceAttributes } | undefined;
  position(key: string): { x: number; y: number } | undefined;
}
type PageGlobal = { edgeMapPage?: PageState; reloadMarker?: number };

let pageDir = '';
test.before(async () => {
  pageDir = await mkdtemp(join(tmpdir(), 'edgemap-page-'));
  await buildEdgeMapPage(pageDir);
  await mkdir(OUTPUT, { recursive: true });
});
test.after.always(async () => { await rm(pageDir, { recursive: true, force: true }); });

test('the page draws the topology, follows server changes without reload, and shows a clicked device', async (t) => {
  const map = plant();
  const served = await serve(map, { pageDir });
  t.teardown(() => served.close());
  const browser = await openBrowser(served.url);
  t.teardown(() => browser.close());
  const { page } = browser;

  await page.goto(`${served.url}/edgemap/`);
  await page.waitForFunction(() => (globalThis as PageGlobal).edgeMapPage?.vertexCount === 8, undefined, { timeout: 15_000 });
  t.is(await page.locator('#status').getAttribute('data-state'), 'live');
  t.regex(await page.locator('#status').innerText(), /8 vertices · 7 links/);
  t.deepEqual(await page.locator('[data-link-type]').allInnerTexts(), [...LINK_TYPES], 'legend lists every link type');

  await page.evaluate(() => { (globalThis as PageGlobal).reloadMarker = 42; });
  map.upsertDevice('plant/scale', { phase: 'Running', nodeName: 'line-b', deviceShifuUrl: 'http://scale.deviceshifu.svc:8080' });
  map.link('line-b', 'plant/scale', 'USB', { latencyMs: 0.3 });
  map.upsertDevice('plant/agv', { phase: 'Failed', nodeName: 'line-a' });
  map.removeDevice('annex/press');
  await page.waitForFunction(() => (globalThis as PageGlobal).edgeMapPage?.vertexCount === 8 && (globalThis as PageGlobal).edgeMapPage?.linkCount === 7
    && (globalThis as PageGlobal).edgeMapPage?.vertex('plant/scale') !== undefined, undefined, { timeout: 15_000 });
  t.is(await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.vertex('plant/agv')?.attributes.phase), 'Failed');
  t.is(await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.vertex('annex/press')), undefined);
  t.is(await page.evaluate(() => (globalThis as PageGlobal).reloadMarker), 42, 'the page was not reloaded');
  t.is(await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.seq), map.seq);

  // Click where sigma drew the device: its own hit detection must pick it.
  // sigma rescales the view to the graph's extent when it next renders, so a position read right
  // after a change may move: wait until it holds across two frames
  const at = await waitFor('plant/scale to stay where it is drawn', async () => {
    const [first, second] = await page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobal & { requestAnimationFrame: (callback: () => void) => number };
      const before = g.edgeMapPage?.position('plant/scale');
      await new Promise<void>((settle) => { g.requestAnimationFrame(() => { g.requestAnimationFrame(settle); }); });
      return [before, g.edgeMapPage?.position('plant/scale')];
    });
    return first !== undefined && second !== undefined && first.x === second.x && first.y === second.y ? second : undefined;
  }, { timeoutMs: 15_000 });
  const box = await page.locator('#graph').boundingBox();
  t.truthy(box);
  await page.mouse.click((box?.x ?? 0) + at.x, (box?.y ?? 0) + at.y);
  await page.locator('#panel').waitFor({ state: 'visible', timeout: 15_000 });
  t.is(await page.locator('#panel .panel-title').innerText(), 'plant/scale');
  t.is(await page.locator('#panel a.panel-url').getAttribute('href'), 'http://scale.deviceshifu.svc:8080');
  t.regex(await page.locator('#panel').innerText(), /status\s+Running[\s\S]*placed on\s+line-b/);
  map.upsertDevice('plant/scale', { phase: 'Failed', nodeName: 'line-b', deviceShifuUrl: 'http://scale.deviceshifu.svc:8080' });
  await page.locator('#panel', { hasText: 'Failed' }).waitFor({ timeout: 15_000 });

  const png = await page.locator('#graph').screenshot({ path: join(OUTPUT, 'plant.png') });
  const pixels = await countPixels(browser.context, png, [PHASE_COLOURS.edgeNode.Ready, LINK_COLOURS.Federation]);
  t.true(pixels.drawn > 2000, `drawn pixels: ${pixels.drawn}`);
  t.true((pixels.near[0] ?? 0) > 100, `pixels of a Ready edgeNode's colour (WebGL nodes): ${pixels.near[0]}`);
  t.true((pixels.near[1] ?? 0) > 50, `pixels of the Federation link colour (WebGL edges): ${pixels.near[1]}`);
  t.deepEqual(browser.problems, []);
});

function thousandDevices(): EdgeMap {
  const map = new EdgeMap();
  const phases = ['Running', 'Running', 'Running', 'Pending', 'Failed', 'Unknown'] as const;
  for (let n = 0; n < 20; n++) {
    map.upsertNode(`node-${String(n).padStart(2, '0')}`, { phase: n === 7 ? 'NotReady' : 'Ready', location: { zone: `hall-${n % 4}` } });
  }
  for (let n = 0; n < 20; n++) map.link(`node-${String(n).padStart(2, '0')}`, `node-${String((n + 1) % 20).padStart(2, '0')}`, 'Ethernet', { latencyMs: 1 });
  for (let d = 0; d < 1000; d++) {
    const node = `node-${String(d % 20).padStart(2, '0')}`;
    const key = `plant/device-${String(d).padStart(4, '0')}`;
    map.upsertDevice(key, { phase: phases[d % phases.length], nodeName: node, deviceShifuUrl: `http://device-${d}.deviceshifu.svc` });
    map.link(node, key, (['Ethernet', 'USB', 'Serial', 'Wireless'] as const)[d % 7 % 4] ?? 'Ethernet');
  }
  for (const cluster of ['munich', 'lyon']) {
    map.upsertCluster(cluster, { phase: cluster === 'lyon' ? 'Unreachable' : 'Peered' });
    map.link(cluster, 'node-00', 'Federation', { latencyMs: 15 });
  }
  return map;
}

test('1,000 devices on 20 nodes are all drawn, and a change still arrives', async (t) => {
  const map = thousandDevices();
  const served = await serve(map, { pageDir });
  t.teardown(() => served.close());
  const browser = await openBrowser(served.url);
  t.teardown(() => browser.close());
  const { page } = browser;
  await page.goto(`${served.url}/edgemap/`);
  await page.waitForFunction(() => (globalThis as PageGlobal).edgeMapPage?.vertexCount === 1022, undefined, { timeout: 30_000 });
  t.is(await page.evaluate(() => (globalThis as PageGlobal).edgeMapPage?.linkCount), 1022);
  map.removeNode('node-19');
  await page.waitForFunction(() => (globalThis as PageGlobal).edgeMapPage?.vertexCount === 1021, undefined, { timeout: 30_000 });
  const png = await page.screenshot({ path: join(OUTPUT, 'thousand-devices.png'), fullPage: true });
  const pixels = await countPixels(browser.context, png, [PHASE_COLOURS.edgeDevice.Running, PHASE_COLOURS.edgeDevice.Failed]);
  t.true((pixels.near[0] ?? 0) > 1000, `Running device pixels: ${pixels.near[0]}`);
  t.true((pixels.near[1] ?? 0) > 200, `Failed device pixels: ${pixels.near[1]}`);
  t.deepEqual(browser.problems, []);
});
