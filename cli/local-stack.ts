// What the CLI knows of a local edge stack (`npm start`, `edgeshifu up`) from the files in its
// folder, which also holds the stack's kubeconfig: stack.json, written by `edgeshifu up` once the
// stack serves, and deviceshifus.json, written by the development runner
// (test/support/localstack/runner.ts) with the localhost port of every deviceShifu it runs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STACK_FILE = 'stack.json';
export const DEVICESHIFUS_FILE = 'deviceshifus.json';
/** Where `npm start` and `edgeshifu up` serve the controller unless told otherwise. */
export const DEFAULT_STACK_PORT = 8080;

/** The repository this CLI runs from: `.edgeshifu/` (npm start, cluster:up) lives there. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `.edgeshifu` of the repository, or $EDGESHIFU_HOME. */
export function edgeshifuHome(env: NodeJS.ProcessEnv): string {
  const home = env.EDGESHIFU_HOME;
  return home === undefined || home === '' ? join(REPO_ROOT, '.edgeshifu') : home;
}

/** The default folder of the local stack (as `npm start`). */
export function defaultStackDir(env: NodeJS.ProcessEnv): string {
  return join(edgeshifuHome(env), 'local');
}

export interface StackState {
  /** The process holding the stack (`edgeshifu up --foreground`, detached or not). */
  readonly pid: number;
  readonly dir: string;
  readonly kubeconfig: string;
  readonly controllerUrl: string;
  readonly edgeMapUrl: string;
  readonly startedAt: string;
  readonly devices: readonly { readonly edgeDevice: string; readonly url: string; readonly tryInstruction: string }[];
}

export interface LocalDeviceShifu {
  readonly edgeDevice: string;
  readonly namespace: string;
  readonly pod: string;
  readonly url: string;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function readStackState(dir: string): StackState | undefined {
  const state = readJson(join(dir, STACK_FILE)) as Partial<StackState> | undefined;
  return typeof state?.pid === 'number' && typeof state.controllerUrl === 'string' ? state as StackState : undefined;
}

/** The deviceShifus the development runner serves next to this kubeconfig; undefined if none runs there. */
export function localDeviceShifus(kubeconfig: string): LocalDeviceShifu[] | undefined {
  const file = readJson(join(dirname(kubeconfig), DEVICESHIFUS_FILE)) as { deviceShifus?: LocalDeviceShifu[] } | undefined;
  return Array.isArray(file?.deviceShifus) ? file.deviceShifus : undefined;
}

/** True when the kubeconfig is a local stack's: a development runner or `edgeshifu up` wrote next to it. */
export function isLocalStackKubeconfig(kubeconfig: string): boolean {
  const dir = dirname(kubeconfig);
  return existsSync(join(dir, STACK_FILE)) || existsSync(join(dir, DEVICESHIFUS_FILE));
}
