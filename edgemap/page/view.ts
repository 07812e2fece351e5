// sigma.js drawing the mirror graph. Labels (name · state) where they fit: every one while the map
// holds fewer than LABEL_ALL vertices, above that nodes and clusters always and a device's once
// zoomed in (readable with 1,000 devices). The labels drawn in the last frame are kept, so the
// page can say (and the browser tests read) what the canvas shows.
import Sigma from 'sigma';
import { drawDiscNodeLabel } from 'sigma/rendering';
import type { PageElement } from './dom.ts';
import type { DrawnLink, DrawnVertex, MirrorGraph } from './mirror.ts';

export type GraphView = Sigma<DrawnVertex, DrawnLink>;

/** Below this many vertices every label is drawn, whatever the zoom. */
export const LABEL_ALL = 200;

export interface View {
  readonly sigma: GraphView;
  /** The labels drawn in the last frame. */
  readonly drawnLabels: ReadonlySet<string>;
}

export function createView(graph: MirrorGraph, container: PageElement, select: (key: string | undefined) => void): View {
  const drawnLabels = new Set<string>();
  const sigma = new Sigma<DrawnVertex, DrawnLink>(graph, container, {
    renderEdgeLabels: false,
    labelRenderedSizeThreshold: 9,
    labelFont: 'system-ui, sans-serif',
    labelSize: 12,
    zIndex: true,
    minCameraRatio: 0.01,
    maxCameraRatio: 4,
    defaultEdgeType: 'line',
    // forceLabel skips both the size threshold and sigma's one-label-per-grid-cell culling
    nodeReducer: (_key, data) => (graph.order < LABEL_ALL ? { ...data, forceLabel: true } : data),
    defaultDrawNodeLabel: (context, data, settings) => {
      if (data.label !== null) drawnLabels.add(data.label);
      drawDiscNodeLabel(context, data, settings);
    },
  });
  sigma.on('beforeRender', () => { drawnLabels.clear(); });
  sigma.on('clickNode', ({ node }) => { select(node); });
  sigma.on('clickStage', () => { select(undefined); });
  return { sigma, drawnLabels };
}

/** Where vertex `key` is drawn, in CSS pixels from the canvas' top-left corner. */
export function viewportPosition(view: GraphView, key: string): { x: number; y: number } | undefined {
  const graph = view.getGraph();
  if (!graph.hasNode(key)) return undefined;
  const { x, y } = graph.getNodeAttributes(key);
  return view.graphToViewport({ x, y });
}

/** Moves the camera so vertex `key` is in the middle of the canvas, zoomed in enough to read around it. */
export function centreOn(view: GraphView, key: string): boolean {
  const at = view.getNodeDisplayData(key);
  if (at === undefined) return false;
  view.getCamera().setState({ x: at.x, y: at.y, ratio: Math.min(view.getCamera().ratio, 0.5) });
  return true;
}
