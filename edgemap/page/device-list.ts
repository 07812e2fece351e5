// The side list: every device with its phase, in key order; a click selects it and centres the
// map on it. Rebuilt only when the map changed (the sequence number moved).
import type { Vertex } from '../model.ts';
import { element, type PageElement } from './dom.ts';

export interface ListedDevice {
  readonly key: string;
  readonly phase: string;
}

/** The devices of `vertices` with their phase ('Unknown' when none was reported), sorted by key. */
export function listedDevices(vertices: Iterable<Vertex>): ListedDevice[] {
  const devices: ListedDevice[] = [];
  for (const v of vertices) if (v.kind === 'edgeDevice') devices.push({ key: v.key, phase: v.attributes.phase ?? 'Unknown' });
  return devices.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function renderDeviceList(into: PageElement, devices: readonly ListedDevice[], pick: (key: string) => void): void {
  const items = devices.map((d) => {
    const item = element('li', 'device-item');
    item.setAttribute('data-key', d.key);
    item.setAttribute('data-phase', d.phase);
    item.title = `${d.key}: ${d.phase}`;
    item.append(element('span', 'device-name', d.key), element('span', `device-phase phase-${d.phase.toLowerCase()}`, d.phase));
    item.addEventListener('click', () => { pick(d.key); });
    return item;
  });
  into.replaceChildren(...(items.length === 0 ? [element('li', 'device-none', 'no devices')] : items));
}
