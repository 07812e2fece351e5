// The edgeMap page: the live topology drawn by sigma.js from the SSE stream, a search box that
// centres the map on a device, and the list of devices with their phase. Bundled by
// edgemap/page/build.ts into dist/edgemap-page and served at /edgemap/ by the controller.
import type { Link, Vertex } from '../model.ts';
import { connect } from './connection.ts';
import { listedDevices, renderDeviceList } from './device-list.ts';
import { browser, byId } from './dom.ts';
import { renderLegend } from './legend.ts';
import { Mirror } from './mirror.ts';
import { showVertex } from './panel.ts';
import { findVertex } from './search.ts';
import { centreOn, createView, viewportPosition, type View } from './view.ts';

function vertices(mirror: Mirror): Vertex[] {
  const all: Vertex[] = [];
  mirror.graph.forEachNode((_key, drawn) => all.push(drawn.vertex));
  return all;
}

function start(): void {
  const mirror = new Mirror();
  const panel = byId('panel');
  const status = byId('status');
  const list = byId('devices');
  const search = byId('search');
  const searchResult = byId('search-result');
  let selected: string | undefined;
  let state = 'connecting';
  let layoutQueued = false;
  let listedSeq = Number.NaN;

  const vertexOf = (key: string | undefined): Vertex | undefined =>
    key !== undefined && mirror.graph.hasNode(key) ? mirror.graph.getNodeAttributes(key).vertex : undefined;
  const refresh = (): void => {
    status.textContent = `${state} · ${mirror.graph.order} vertices · ${mirror.graph.size} links · change #${Math.max(0, mirror.seq)}`;
    status.setAttribute('data-state', state);
    showVertex(panel, vertexOf(selected));
    if (listedSeq !== mirror.seq) {
      listedSeq = mirror.seq;
      renderDeviceList(list, listedDevices(vertices(mirror)), (key) => { pick(key); });
    }
  };
  const select = (key: string | undefined): void => { selected = key; refresh(); };
  const view: View = createView(mirror.graph, byId('graph'), select);
  /** Selects `key` and centres the map on it. */
  const pick = (key: string): void => {
    centreOn(view.sigma, key);
    select(key);
  };
  // Changes arrive in bursts (a resync): lay out once per frame, not once per change.
  const queueLayout = (): void => {
    if (layoutQueued) return;
    layoutQueued = true;
    browser().requestAnimationFrame(() => { layoutQueued = false; mirror.layout(); refresh(); });
  };

  search.addEventListener('change', () => {
    const query = search.value;
    const found = findVertex(vertices(mirror), query);
    searchResult.textContent = query.trim() === '' ? '' : found === undefined ? `nothing matches "${query.trim()}"` : found;
    searchResult.setAttribute('data-found', found ?? '');
    if (found !== undefined) pick(found);
  });
  renderLegend(byId('legend'));
  connect('events', {
    snapshot: (snapshot) => { mirror.load(snapshot); refresh(); },
    change: (change) => {
      const result = mirror.apply(change);
      if (result === 'applied') queueLayout();
      return result;
    },
    status: (s) => { state = s; refresh(); },
  });
  browser().edgeMapPage = Object.freeze({
    get seq(): number { return mirror.seq; },
    get state(): string { return state; },
    get selected(): string | undefined { return selected; },
    get vertexCount(): number { return mirror.graph.order; },
    get linkCount(): number { return mirror.graph.size; },
    /** The labels sigma drew on the canvas in its last frame. */
    get drawnLabels(): string[] { return [...view.drawnLabels].sort(); },
    vertex: (key: string): Vertex | undefined => vertexOf(key),
    link: (a: string, b: string): Link | undefined => (mirror.graph.hasEdge(a, b) ? mirror.graph.getEdgeAttributes(a, b).link : undefined),
    position: (key: string): { x: number; y: number } | undefined => viewportPosition(view.sigma, key),
  });
}

start();
