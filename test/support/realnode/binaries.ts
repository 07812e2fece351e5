// Finds (and on first use builds, niced: the machine is shared) kubelet, kube-proxy, crictl,
// CoreDNS and the pause binary with build.sh beside this file: one line per step, Go's output in
// a log file (build-script.ts).
import { fileURLToPath } from 'node:url';
import { runBuildScript } from '../build-script.ts';
import { COREDNS_VERSION } from './coredns.ts';
import { RealNodeUnavailable } from './host.ts';

const BUILD_SCRIPT = fileURLToPath(new URL('./build.sh', import.meta.url));

export async function realNodeBinaries(progress: (text: string) => void = (text) => process.stderr.write(text)): Promise<string> {
  const result = await runBuildScript({ label: 'realnode', script: BUILD_SCRIPT, wrapper: ['nice', '-n', '10'], env: { ...process.env, COREDNS_VERSION }, progress });
  if (result.code === 0) return result.output;
  const log = result.logPath === undefined ? '' : ` (whole log: ${result.logPath})`;
  throw new RealNodeUnavailable(`building the real node's binaries failed (exit ${result.code ?? 'signal'})${log}:\n${result.stderr.trim().split('\n').slice(-15).join('\n')}`);
}
