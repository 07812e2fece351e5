// The side panel: what the operator clicked — for a device its deviceShifu URL and status.
import type { Vertex } from '../model.ts';
import { element, type PageElement } from './dom.ts';

function row(label: string, value: PageElement | string): PageElement {
  const el = element('div', 'panel-row');
  el.append(element('span', 'panel-label', label), typeof value === 'string' ? element('span', 'panel-value', value) : value);
  return el;
}

function location(vertex: Vertex): string | undefined {
  const l = vertex.attributes.location;
  if (l === undefined) return undefined;
  const at = l.latitude === undefined || l.longitude === undefined ? '' : `${l.latitude.toFixed(5)}, ${l.longitude.toFixed(5)}`;
  return [l.zone === undefined ? '' : `zone ${l.zone}`, at].filter((s) => s !== '').join(' · ');
}

// Only http(s) URLs become links (the model refuses others too): never a javascript: href.
function urlValue(url: string): PageElement {
  const a = element('a', 'panel-value panel-url', url);
  if (/^https?:\/\//.test(url)) a.href = url;
  a.setAttribute('rel', 'noopener noreferrer');
  a.setAttribute('target', '_blank');
  return a;
}

function details(vertex: Vertex): Array<[string, PageElement | string | undefined]> {
  const common: Array<[string, PageElement | string | undefined]> = [
    ['kind', vertex.kind], ['status', vertex.attributes.phase ?? 'Unknown'], ['location', location(vertex)],
  ];
  if (vertex.kind === 'edgeDevice') {
    const a = vertex.attributes;
    return [...common, ['deviceShifu', a.deviceShifuUrl === undefined ? 'not exposed yet' : urlValue(a.deviceShifuUrl)],
      ['placed on', a.nodeName ?? 'not placed'], ['protocol', a.protocol]];
  }
  if (vertex.kind === 'edgeNode') {
    const a = vertex.attributes;
    return [...common, ['free cpu', a.free?.cpu?.toString()], ['free memory', a.free?.memory?.toString()]];
  }
  if (vertex.kind === 'component') {
    return [...common, ['runs on', vertex.attributes.cluster], ['reached at', vertex.attributes.endpoint]];
  }
  return [...common, ['broker', vertex.attributes.broker], ['connection', vertex.attributes.message], ['endpoint', vertex.attributes.endpoint]];
}

/** Shows `vertex` (or hides the panel when undefined or removed). */
export function showVertex(panel: PageElement, vertex: Vertex | undefined): void {
  if (vertex === undefined) {
    panel.hidden = true;
    panel.replaceChildren();
    return;
  }
  const rows = details(vertex).filter((d): d is [string, PageElement | string] => d[1] !== undefined && d[1] !== '');
  panel.replaceChildren(element('h2', 'panel-title', vertex.key), ...rows.map(([label, value]) => row(label, value)));
  panel.setAttribute('data-key', vertex.key);
  panel.hidden = false;
}
