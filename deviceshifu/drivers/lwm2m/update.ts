// Update (LwM2M TS 1.0 §5.3.2, §8.2.4): POST /rd/<id>?lt=..&b=.. with the objects when they changed.
// Renews the lifetime and takes the source address as the client's new one (NAT rebinding). An
// unknown id is 4.04, which tells the client to Register again.
import { CoapRefusal, type Step } from './flow.ts';
import { parseObjectLinks } from './links.ts';
import { lifetimeOf } from './register.ts';
import type { Registration, Registry } from './registry.ts';

export interface UpdateContext {
  readonly id: string;
  readonly query: URLSearchParams;
  readonly payload: Buffer;
  readonly source: { readonly address: string; readonly port: number };
  readonly registry: Registry;
  found?: Registration;
  registration?: Registration;
}

export const UPDATE_STEPS: readonly Step<UpdateContext>[] = [
  {
    name: 'registration',
    run(c) {
      c.found = c.registry.find(c.id);
      if (c.found === undefined) throw new CoapRefusal('4.04', `no registration /rd/${c.id} (expired or never made): Register again`);
    },
  },
  {
    name: 'record',
    run(c) {
      const found = c.found as Registration;
      const objects = c.payload.length === 0 ? undefined : parseObjectLinks(c.payload);
      const binding = c.query.get('b');
      c.registration = c.registry.update(c.id, {
        address: c.source.address, port: c.source.port, lifetimeSec: lifetimeOf(c.query.get('lt'), found.lifetimeSec),
        ...(binding === null ? {} : { binding }), ...(objects === undefined ? {} : { objects }),
      });
    },
  },
];
