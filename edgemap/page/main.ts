// The edgeMap page: the live topology drawn by sigma.js from the SSE stream. Bundled by
// edgemap/page/build.ts into dist/edgemap-page and served at /edgemap/ by the controller.
import type { Vertex } from '../model.ts';
import { connect } from './connection.ts';
import { browser, byId } from './dom.ts';
import { renderLegend } from './legend.ts';
import { Mirror } from './mirror.ts';
import { showVertex } from './panel.ts';
import { createView, viewportPosition, type GraphView } from './view.ts';

function start(): void {
  const mirror = new Mirror();
  const panel = byId('panel');
  const status = byId('status');
  let selected: string | undefined;
  let state = 'connecting';
  let layoutQueued = false;

  const vertexOf = (key: string | undefined): Vertex | undefined =>
    key !== undefined && mirror.graph.hasNode(key) ? mirror.graph.getNodeAttributes(key).vertex : undefined;
  const refresh = (): void => {
    status.textContent = `${state} · ${mirror.graph.order} vertices · ${mirror.graph.size} links · change #${Math.max(0, mirror.seq)}`;
    status.setAttribute('data-state', state);
    showVertex(panel, vertexOf(selected));
  };
  const select = (key: string | undefined): void => { selected = key; refresh(); };
  const view: GraphView = createView(mirror.graph, byId('graph'), select);
  // Changes arrive in bursts (a resync): lay out once per frame, not once per change.
  const queueLayout = (): void => {
    if (layoutQueued) return;
    layoutQueued = true;
    browser().requestAnimationFrame(() => { layoutQueued = false; mirror.layout(); refresh(); });
  };

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
    vertex: (key: string): Vertex | undefined => vertexOf(key),
    position: (key: string): { x: number; y: number } | undefined => viewportPosition(view, key),
  });
}

start();
