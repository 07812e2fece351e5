// Finds (and on first use builds) the control-plane binaries with build.sh beside this file.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
 * kine and kwok. Builds them on the first call on a machine (progress goes to stderr).
 */
export async function controlPlaneBinaries(env: NodeJS.ProcessEnv = process.env, progress: (text: string) => void = (text) => process.stderr.write(text)): Promise<string> {
  const path = await pathWithGo(env.PATH ?? '', env);
  const child = spawn('bash', [BUILD_SCRIPT], { env: { ...env, PATH: path }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    progress(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code === 0) return stdout.trim().split('\n').at(-1) ?? '';
  const tail = stderr.trim().split('\n').slice(-15).join('\n');
  if (code === EXIT_TOOLCHAIN_MISSING) throw new ControlPlaneUnavailable('toolchain-missing', tail);
  throw new ControlPlaneUnavailable('build-failed', `building the test control plane failed (exit ${code ?? 'signal'}):\n${tail}`);
}
