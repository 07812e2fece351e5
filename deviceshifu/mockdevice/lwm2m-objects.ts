// The LwM2M mock's objects and their resources (IPSO temperature 3303 and light control 3311, and
// a Device object 3), as plain-text values with the operations each allows: what a read, write or
// execute of a path answers, in CoAP codes (pure apart from the values it holds).
export type Operation = 'R' | 'RW' | 'E';

interface Resource {
  readonly operations: Operation;
  value: string;
  /** Writes are checked by this (returns a reason to refuse with 4.00). */
  readonly check?: (text: string) => string | undefined;
}

export interface Answer {
  readonly code: string;
  readonly payload: string;
}

const float = (text: string): string | undefined => (Number.isFinite(Number(text)) && text.trim() !== '' ? undefined : `"${text}" is not a Float`);
const dimmer = (text: string): string | undefined => (/^\d+$/.test(text) && Number(text) <= 100 ? undefined : `dimmer "${text}" is not 0-100`);
const boolean = (text: string): string | undefined => (text === '0' || text === '1' ? undefined : `"${text}" is not 0 or 1`);

export class Lwm2mObjects {
  private readonly resources = new Map<string, Resource>([
    ['/3/0/0', { operations: 'R', value: 'edgeshifu' }],
    ['/3/0/1', { operations: 'R', value: 'mock-lwm2m' }],
    ['/3303/0/5700', { operations: 'R', value: '21.5' }],
    ['/3303/0/5601', { operations: 'R', value: '21.5' }],
    ['/3303/0/5602', { operations: 'R', value: '21.5' }],
    ['/3303/0/5701', { operations: 'R', value: 'Cel' }],
    ['/3303/0/5605', { operations: 'E', value: '' }],
    ['/3303/0/5603', { operations: 'RW', value: '-40', check: float }],
    ['/3311/0/5850', { operations: 'RW', value: '0', check: boolean }],
    ['/3311/0/5851', { operations: 'RW', value: '0', check: dimmer }],
    ['/3311/0/5706', { operations: 'RW', value: 'white' }],
  ]);

  /** Object instance links for Register: </3/0>,</3303/0>,</3311/0>. */
  links(): string {
    const instances = new Set([...this.resources.keys()].map((p) => p.split('/').slice(0, 3).join('/')));
    return [...instances].map((i) => `<${i}>`).join(',');
  }

  value(path: string): string | undefined {
    return this.resources.get(path)?.value;
  }

  /** The sensor's new reading; min and max follow it. */
  setTemperature(celsius: number): void {
    const text = String(celsius);
    this.set('/3303/0/5700', text);
    if (celsius < Number(this.value('/3303/0/5601'))) this.set('/3303/0/5601', text);
    if (celsius > Number(this.value('/3303/0/5602'))) this.set('/3303/0/5602', text);
  }

  read(path: string): Answer {
    const r = this.resources.get(path);
    if (r === undefined) return { code: '4.04', payload: `no resource ${path}` };
    if (r.operations === 'E') return { code: '4.05', payload: `${path} is executable` };
    return { code: '2.05', payload: r.value };
  }

  write(path: string, text: string): Answer {
    const r = this.resources.get(path);
    if (r === undefined) return { code: '4.04', payload: `no resource ${path}` };
    if (r.operations !== 'RW') return { code: '4.05', payload: `${path} is not writable` };
    const problem = r.check?.(text);
    if (problem !== undefined) return { code: '4.00', payload: problem };
    r.value = text;
    return { code: '2.04', payload: '' };
  }

  execute(path: string): Answer {
    const r = this.resources.get(path);
    if (r === undefined) return { code: '4.04', payload: `no resource ${path}` };
    if (r.operations !== 'E') return { code: '4.05', payload: `${path} is not executable` };
    // 5605: reset the min and max measured values to the current reading
    if (path === '/3303/0/5605') {
      const now = this.value('/3303/0/5700') ?? '';
      this.set('/3303/0/5601', now);
      this.set('/3303/0/5602', now);
    }
    return { code: '2.04', payload: '' };
  }

  private set(path: string, value: string): void {
    const r = this.resources.get(path);
    if (r !== undefined) r.value = value;
  }
}
