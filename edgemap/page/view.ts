// sigma.js drawing the mirror graph. Labels only where they fit: nodes and clusters always, a
// device's once zoomed in (readable with 1,000 devices).
import Sigma from 'sigma';
import type { PageElement } from './dom.ts';
import type { DrawnLink, DrawnVertex, MirrorGraph } from './mirror.ts';

export type GraphView = Sigma<DrawnVertex, DrawnLink>;

export function createView(graph: MirrorGraph, container: PageElement, select: (key: string | undefined) => void): GraphView {
  const view = new Sigma<DrawnVertex, DrawnLink>(graph, container, {
    renderEdgeLabels: false,
    labelRenderedSizeThreshold: 9,
    labelFont: 'system-ui, sans-serif',
    labelSize: 12,
    zIndex: true,
    minCameraRatio: 0.01,
    maxCameraRatio: 4,
    defaultEdgeType: 'line',
  });
  view.on('clickNode', ({ node }) => { select(node); });
  view.on('clickStage', () => { select(undefined); });
  return view;
}

/** Where vertex `key` is drawn, in CSS pixels from the canvas' top-left corner. */
export function viewportPosition(view: GraphView, key: string): { x: number; y: number } | undefined {
  const graph = view.getGraph();
  if (!graph.hasNode(key)) return undefined;
  const { x, y } = graph.getNodeAttributes(key);
  return view.graphToViewport({ x, y });
}
