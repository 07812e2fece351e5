// The legend: what each colour and size means (kinds and phases), and each link type's colour.
import { LINK_TYPES, type VertexKind } from '../model.ts';
import { KIND_SIZE, LINK_COLOURS, PHASE_COLOURS } from '../style.ts';
import { element, type PageElement } from './dom.ts';

const KIND_NAMES: Record<VertexKind, string> = { edgeNode: 'edgeNode', edgeDevice: 'edgeDevice', remoteCluster: 'remote cluster', component: 'offloaded component' };

function swatch(colour: string, className: string, size?: number): PageElement {
  const el = element('span', className);
  el.setAttribute('data-colour', colour);
  el.style.setProperty('background', colour);
  if (size !== undefined) {
    el.style.setProperty('width', `${size}px`);
    el.style.setProperty('height', `${size}px`);
  }
  return el;
}

export function renderLegend(into: PageElement): void {
  const rows: PageElement[] = [];
  for (const kind of Object.keys(PHASE_COLOURS) as VertexKind[]) {
    const row = element('div', 'legend-kind');
    row.append(element('strong', 'legend-title', KIND_NAMES[kind]));
    for (const [phase, colour] of Object.entries(PHASE_COLOURS[kind])) {
      const item = element('span', 'legend-item');
      item.setAttribute('data-kind', kind);
      item.append(swatch(colour, 'dot', Math.max(6, KIND_SIZE[kind])), phase);
      row.append(item);
    }
    rows.push(row);
  }
  const links = element('div', 'legend-links');
  links.append(element('strong', 'legend-title', 'links'));
  for (const type of LINK_TYPES) {
    const item = element('span', 'legend-item');
    item.setAttribute('data-link-type', type);
    item.append(swatch(LINK_COLOURS[type], 'line'), type);
    links.append(item);
  }
  into.replaceChildren(...rows, links);
}
