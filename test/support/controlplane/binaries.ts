// Finds (and on first use builds) the control-plane binaries with build.sh beside this file.
import { fileURLToPath } from 'node:url';
import { runBuildScript } from '../build-script.ts';
import { pathWithGo } from '../prerequisites/go.ts';

export class ControlPlaneUnavailable extends Error {
  override readonly name = 'ControlPlaneUnavailable';
  readonly kind: 'toolchain-missing' | 'build-failed';
  constructor(kind: 'toolchain-missing' | 'build-failed', message: string) {
    super(message);
    this.kind = kind;
  }
}

const BUILD_SCRIPT = fileURLToPath(new URL('./build.sh', import.meta.url));

/** Exit code build.sh uses for "a tool it needs (Go, gcc) is not installed". */
const EXIT_TOOLCHAIN_MISSING = 3;

/**
 * Returns the directory holding kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
 * kine and kwok. Builds them on the first call on a machine: one line per step on `progress`,
 * Go's output in a log file whose path is printed (and printed whole when the build fails).
 */
export async function controlPlaneBinaries(env: NodeJS.ProcessEnv = process.env, progress: (text: string) => void = (text) => process.stderr.write(text)): Promise<string> {
  const path = await pathWithGo(env.PATH ?? '', env);
  const result = await runBuildScript({ label: 'controlplane', script: BUILD_SCRIPT, env: { ...env, PATH: path }, progress });
  if (result.code === 0) return result.output;
  const tail = result.stderr.trim().split('\n').slice(-15).join('\n');
  const log = result.logPath === undefined ? '' : ` (whole log: ${result.logPath})`;
  if (result.code === EXIT_TOOLCHAIN_MISSING) throw new ControlPlaneUnavailable('toolchain-missing', tail);
  throw new ControlPlaneUnavailable('build-failed', `building the test control plane failed (exit ${result.code ?? 'signal'})${log}:\n${tail}`);
}
