// Runs the harness's kubectl against a cluster: tests use it where a user would.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { controlPlaneBinaries } from './controlplane/binaries.ts';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function kubectl(kubeconfigPath: string, args: readonly string[], input?: string): Promise<KubectlResult> {
  const bin = join(await controlPlaneBinaries(), 'kubectl');
  return new Promise((resolve) => {
    const child = execFile(bin, [`--kubeconfig=${kubeconfigPath}`, ...args], { maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}
