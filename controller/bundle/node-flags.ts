// The controller's deviceShifu node flags setting (`--device-shifu-node-flags`): the NODE_FLAGS a
// deviceShifu runs with instead of the image's, to trade memory for speed where a device is called
// hard (deviceshifu/README.md, "Memory against latency"). Pure.
import { EdgeshifuError } from '../../shared/errors.ts';

// Tuning flags only: a flag is a plain word with an optional plain value, so the setting cannot
// carry a script, a path with spaces or shell syntax into the pod.
const FLAG = /^--[a-z0-9][a-z0-9-]*(=[A-Za-z0-9._:,+-]+)?$/;
// Flags that run or load code, or open a port, are not tuning: refused.
const REFUSED = ['--inspect', '--debug', '--require', '--import', '--loader', '--experimental-loader', '--eval', '--print', '--env-file', '--run', '--watch', '--test', '--snapshot-blob', '--build-snapshot', '--cpu-prof', '--heap-prof', '--diagnostic-dir', '--report'];

/** Parses the setting: '' leaves the image's flags; anything else is the whole of NODE_FLAGS. */
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
