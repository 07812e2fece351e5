// Where the CLI talks to, decided once per run (pure): which kubeconfig, and how to reach the
// controller's HTTP endpoints (/readyz, /metrics, /edgemap). Each choice says where it came from,
// so an error can tell the user what to change.
import { delimiter, dirname, join } from 'node:path';
import { DEFAULT_STACK_PORT, defaultStackDir, edgeshifuHome } from './local-stack.ts';

export interface KubeconfigChoice {
  /** The first file: a local stack keeps its state files beside it. */
  readonly path: string;
  /** Every file to read, merged as kubectl merges them ($KUBECONFIG may list several). */
  readonly files: readonly string[];
  /** Why this file: `--kubeconfig`, `$KUBECONFIG`, `the local stack`, ... */
  readonly source: string;
}

export interface KubeconfigInputs {
  readonly flag: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly homedir: string;
  readonly exists: (path: string) => boolean;
}

/** --kubeconfig, else $KUBECONFIG (all its files), else the local stack's, the dev cluster's, ~/.kube/config. */
export function chooseKubeconfig(inputs: KubeconfigInputs): KubeconfigChoice | undefined {
  if (inputs.flag !== undefined) return { path: inputs.flag, files: [inputs.flag], source: '--kubeconfig' };
  const fromEnv = (inputs.env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  const first = fromEnv[0];
  if (first !== undefined) return { path: first, files: fromEnv, source: '$KUBECONFIG' };
  const candidates = [
    { path: join(defaultStackDir(inputs.env), 'admin.kubeconfig'), source: 'the local stack (edgeshifu up / npm start)' },
    { path: join(edgeshifuHome(inputs.env), 'dev-cluster', 'admin.kubeconfig'), source: 'the dev cluster (npm run cluster:up)' },
    { path: join(inputs.homedir, '.kube', 'config'), source: '~/.kube/config' },
  ];
  const found = candidates.find((c) => inputs.exists(c.path));
  return found === undefined ? undefined : { ...found, files: [found.path] };
}

export type ControllerChoice =
  | { readonly kind: 'direct'; readonly url: string; readonly source: string }
  /** Through the API server: /api/v1/namespaces/<ns>/services/<name>:http/proxy (kubectl-style). */
  | { readonly kind: 'proxy'; readonly namespace: string; readonly service: string };

export const CONTROLLER_SERVICE = { namespace: 'edgeshifu-system', service: 'edgeshifu-controller' } as const;

export interface ControllerInputs {
  readonly flag: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  /** The controller URL `edgeshifu up` recorded next to the kubeconfig, if any. */
  readonly stackControllerUrl: string | undefined;
  /** The kubeconfig is a local stack's (its controller runs on this machine). */
  readonly localStack: boolean;
}

export function chooseController(inputs: ControllerInputs): ControllerChoice {
  const fromEnv = inputs.env.EDGESHIFU_CONTROLLER;
  if (inputs.flag !== undefined) return { kind: 'direct', url: trimSlash(inputs.flag), source: '--controller' };
  if (fromEnv !== undefined && fromEnv !== '') return { kind: 'direct', url: trimSlash(fromEnv), source: '$EDGESHIFU_CONTROLLER' };
  if (inputs.stackControllerUrl !== undefined) return { kind: 'direct', url: trimSlash(inputs.stackControllerUrl), source: 'the local stack (stack.json)' };
  if (inputs.localStack) return { kind: 'direct', url: `http://127.0.0.1:${String(DEFAULT_STACK_PORT)}`, source: 'the local stack\'s default port' };
  return { kind: 'proxy', ...CONTROLLER_SERVICE };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The folder a kubeconfig sits in: a local stack keeps its state files there. */
export function stackDirOf(kubeconfig: KubeconfigChoice): string {
  return dirname(kubeconfig.path);
}
