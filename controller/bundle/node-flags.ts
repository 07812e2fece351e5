// The NODE_FLAGS of every deviceShifu: its own by default (DEVICE_SHIFU_NODE_FLAGS), or the
// controller's setting (`--device-shifu-node-flags`) instead. Pure.
import { EdgeshifuError } from '../../shared/errors.ts';

/**
 * deviceShifu's own flags, chosen by measurement (deviceshifu/README.md, "Flags"): V8's optimising
 * tiers on (the image's --lite-mode made each request cost ~4x the CPU), a 1 MB semi-space, the old
 * generation capped at 24 MB (live heap ~10-12 MB; without a cap V8 lets garbage grow the heap to
 * 30-40 MB under load before collecting it), no V8 background threads (their malloc arenas
 * held ~10 MB more after a load), and type feedback only for functions called 200 times (the
 * start-up code run a few times then keeps none: ~1 MiB less idle; the request path is called far
 * more often, and its CPU per request did not change), and --expose-gc, which turns on the
 * collection once a busy spell ends (shared/idle-collector.ts: 33 -> 17 MiB 15 s after a load).
 */
export const DEVICE_SHIFU_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--max-old-space-size=24', '--single-threaded', '--invocation-count-for-feedback-allocation=200', '--expose-gc'];

/**
 * An OPC UA deviceShifu's own flags: the same but for a 48 MB old-generation cap. node-opcua's
 * heap alone is about 20.5 MB live once the client starts (measured on the real node: with the
 * 24 MB cap every OPC UA deviceShifu died at start, "Ineffective mark-compacts near heap limit"),
 * so 24 MB leaves it no room; 48 is about twice that live heap, as 24 is for the others.
 */
export const OPCUA_DEVICE_SHIFU_NODE_FLAGS: readonly string[] = DEVICE_SHIFU_NODE_FLAGS.map((f) => f.startsWith('--max-old-space-size=') ? '--max-old-space-size=48' : f);

/** deviceShifu's own NODE_FLAGS for a device of this protocol. */
export function deviceShifuNodeFlags(protocol: string): readonly string[] {
  return protocol === 'OPCUA' ? OPCUA_DEVICE_SHIFU_NODE_FLAGS : DEVICE_SHIFU_NODE_FLAGS;
}

// Tuning flags only: a flag is a plain word with an optional plain value, so the setting cannot
// carry a script, a path with spaces or shell syntax into the pod.
const FLAG = /^--[a-z0-9][a-z0-9-]*(=[A-Za-z0-9._:,+-]+)?$/;
// Flags that run or load code, or open a port, are not tuning: refused.
const REFUSED = ['--inspect', '--debug', '--require', '--import', '--loader', '--experimental-loader', '--eval', '--print', '--env-file', '--run', '--watch', '--test', '--snapshot-blob', '--build-snapshot', '--cpu-prof', '--heap-prof', '--diagnostic-dir', '--report'];

/** Parses the setting: '' leaves deviceShifu's own flags; anything else is the whole of NODE_FLAGS. */
export function parseNodeFlags(text: string): string[] {
  const flags = text.split(/\s+/).filter((f) => f !== '');
  for (const flag of flags) {
    const name = flag.split('=')[0] ?? flag;
    if (REFUSED.some((refused) => name === refused || name.startsWith(`${refused}-`))) {
      throw new EdgeshifuError('invalid', `device-shifu-node-flags: "${name}" runs or loads code, or opens a port; only V8 and memory tuning flags are taken (e.g. --max-opt=2 --max-semi-space-size=1)`);
    }
    if (!FLAG.test(flag)) throw new EdgeshifuError('invalid', `device-shifu-node-flags: "${flag}" is not a flag: write each as --name or --name=value (letters, digits, . _ : , + -), separated by spaces`);
  }
  return flags;
}
