// Finds (and on first use builds, niced: the machine is shared) kubelet, kube-proxy, crictl and
// the pause binary with build.sh beside this file.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RealNodeUnavailable } from './host.ts';

const BUILD_SCRIPT = fileURLToPath(new URL('./build.sh', import.meta.url));

export async function realNodeBinaries(progress: (text: string) => void = (text) => process.stderr.write(text)): Promise<string> {
  const child = spawn('nice', ['-n', '10', 'bash', BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    progress(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code === 0) return stdout.trim().split('\n').at(-1) ?? '';
  throw new RealNodeUnavailable(`building the real node's binaries failed (exit ${code ?? 'signal'}):\n${stderr.trim().split('\n').slice(-15).join('\n')}`);
}
