// The baseline: the load calls the device itself. Every other target's added latency is against it.
import type { Target } from '../target.ts';

export const direct: Target = {
  name: 'direct',
  start: (context) => Promise.resolve({
    urls: [`http://${context.device}/${context.path}`], pids: [], devices: 1, describe: 'the trivial Go device, called straight', stop: () => Promise.resolve(),
  }),
};
