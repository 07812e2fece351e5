// De-register (LwM2M TS 1.0 §5.3.3, §8.2.5): DELETE /rd/<id>, answered 2.02 Deleted. Calls in
// flight to the client fail at once (the registry's listeners end them), not at their deadline.
import { CoapRefusal, type Step } from './flow.ts';
import type { Registry } from './registry.ts';

export interface DeregisterContext {
  readonly id: string;
  readonly registry: Registry;
}

export const DEREGISTER_STEPS: readonly Step<DeregisterContext>[] = [
  {
    name: 'registration',
    run(c) {
      if (c.registry.deregister(c.id) === undefined) throw new CoapRefusal('4.04', `no registration /rd/${c.id}`);
    },
  },
];
