// Register (LwM2M TS 1.0 §5.3.1, §8.2.3): POST /rd?ep=<name>&lt=<lifetime>&lwm2m=<version>&b=<binding>
// with the client's objects as link format. Answered 2.01 Created with Location-Path rd/<id>, the
// handle the client uses for Update and De-register. Only the EdgeDevice's endpoint name is let in.
import { CoapRefusal, type Step } from './flow.ts';
import { parseObjectLinks } from './links.ts';
import type { Registration, Registry } from './registry.ts';

export interface RegisterContext {
  readonly query: URLSearchParams;
  readonly payload: Buffer;
  readonly source: { readonly address: string; readonly port: number };
  readonly expectedEndpoint: string;
  readonly defaultLifetimeSec: number;
  readonly registry: Registry;
  endpointName?: string;
  lifetimeSec?: number;
  version?: string;
  objects?: string[];
  registration?: Registration;
}

/** LwM2M versions whose registration interface this server speaks. */
export const VERSIONS = ['1.0', '1.1', '1.2'];

/** A lifetime query value: whole seconds, at least 1. */
export function lifetimeOf(text: string | null, fallback: number): number {
  if (text === null) return fallback;
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1) throw new CoapRefusal('4.00', `lt "${text}" is not a lifetime in whole seconds`);
  return Math.min(Number(text), 0x7fffffff / 1000);
}

export const REGISTER_STEPS: readonly Step<RegisterContext>[] = [
  {
    name: 'endpoint name',
    run(c) {
      const ep = c.query.get('ep');
      if (ep === null || ep === '') throw new CoapRefusal('4.00', 'Register needs ep=<endpoint name>');
      if (ep !== c.expectedEndpoint) {
        c.registry.lastRefused = { endpointName: ep, from: `${c.source.address}:${c.source.port}`, at: Date.now() };
        throw new CoapRefusal('4.03', `endpoint name "${ep}" is not the one this server serves`);
      }
      c.endpointName = ep;
    },
  },
  {
    name: 'version',
    run(c) {
      const version = c.query.get('lwm2m') ?? '1.0';
      if (!VERSIONS.includes(version)) throw new CoapRefusal('4.12', `LwM2M version ${version} is not supported (${VERSIONS.join(', ')})`);
      c.version = version;
    },
  },
  { name: 'lifetime', run(c) { c.lifetimeSec = lifetimeOf(c.query.get('lt'), c.defaultLifetimeSec); } },
  { name: 'objects', run(c) { c.objects = parseObjectLinks(c.payload); } },
  {
    name: 'record',
    run(c) {
      c.registration = c.registry.register({
        endpointName: c.endpointName ?? '', address: c.source.address, port: c.source.port, lifetimeSec: c.lifetimeSec ?? c.defaultLifetimeSec,
        lwm2mVersion: c.version ?? '1.0', binding: c.query.get('b') ?? 'U', objects: c.objects ?? [],
      });
    },
  },
];
