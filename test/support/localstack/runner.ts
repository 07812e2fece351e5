// The development runner of the local edge stack. NOT a kubelet: there is no kubelet on
// this machine, so for every Pod bound to the local KWOK node it starts the container's entrypoint
// (`tsx <component source>`) as a local process, with the Pod's env and its ConfigMaps written out
// one file per key, as the volume would be, and stops it when the Pod goes away. No images, no
// isolation, no probes, no restarts, no resource limits, no Pod status writes (KWOK writes those).
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { CoreV1Api } from '@kubernetes/client-node';
import { Informer } from '../../../shared/kube/informer.ts';
import type { Logger } from '../../../shared/log.ts';
import { ManagedProcess } from '../controlplane/process.ts';
import { freePort } from '../controlplane/ports.ts';
import { planLocalProcess, type LocalProcessPlan } from './pod-process.ts';
import { DEVICESHIFUS_FILE } from '../../../cli/local-stack.ts';


/** Mount paths a component reads from a flag rather than from the fixed path of the image. */
const MOUNT_FLAGS: Readonly<Record<string, string>> = { '/etc/edgedevice/config': '--config-dir' };

export interface RunnerOptions {
  readonly kc: KubeConfig;
  readonly core: CoreV1Api;
  readonly kubeconfigPath: string;
  readonly namespace: string;
  readonly nodeName: string;
  /** Logs and ConfigMap files go here. */
  readonly dir: string;
  readonly logger: Logger;
}

export interface LocalPod {
  readonly pod: string;
  readonly env: Readonly<Record<string, string>>;
  readonly port: number;
  readonly process: ManagedProcess;
}

export class DevelopmentRunner {
  private readonly options: RunnerOptions;
  private readonly informer: Informer<V1Pod>;
  /** By Pod uid: a Pod recreated under the same name is a new process. */
  private readonly pods = new Map<string, LocalPod>();
  private readonly starting = new Set<string>();
  private stopped = false;
  private published: Promise<void> = Promise.resolve();

  constructor(options: RunnerOptions) {
    this.options = options;
    const { core, namespace, nodeName } = options;
    const fieldSelector = `spec.nodeName=${nodeName}`;
    this.informer = new Informer<V1Pod>({
      kc: options.kc, path: `/api/v1/namespaces/${namespace}/pods`, fieldSelector, logger: options.logger,
      list: () => core.listNamespacedPod({ namespace, fieldSelector }),
    });
    const sync = (pod: V1Pod): void => { void this.sync(pod); };
    this.informer.on('add', sync);
    this.informer.on('update', sync);
    this.informer.on('delete', (pod) => { void this.remove(pod.metadata?.uid ?? ''); });
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  /** The running processes, by the EdgeDevice they serve (EDGEDEVICE_NAME) or the Pod name. */
  running(): LocalPod[] {
    return [...this.pods.values()].filter((p) => p.process.running);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
    await Promise.all([...this.pods.keys()].map((uid) => this.remove(uid)));
  }

  private isStopped(): boolean {
    return this.stopped;
  }

  private async sync(pod: V1Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    let plan: LocalProcessPlan | undefined;
    try {
      plan = planLocalProcess(pod, { nodeName: this.options.nodeName, podIP: '127.0.0.1' });
    } catch (err) {
      this.options.logger.error({ err: (err as Error).message }, 'pod not started');
      return;
    }
    if (plan === undefined) { await this.remove(uid); return; }
    if (this.stopped || this.pods.has(uid) || this.starting.has(uid)) return;
    this.starting.add(uid);
    try {
      const local = await this.launch(plan);
      // stop() may have run while this Pod was starting
      if (this.isStopped()) await local.process.stop();
      else { this.pods.set(uid, local); await this.publish(); }
    } catch (err) {
      this.options.logger.error({ pod: plan.pod, err: (err as Error).message }, 'pod not started');
    } finally {
      this.starting.delete(uid);
    }
  }

  private async launch(plan: LocalProcessPlan): Promise<LocalPod> {
    const { core, namespace, dir, kubeconfigPath } = this.options;
    const flags: string[] = [];
    for (const [index, mount] of plan.configMaps.entries()) {
      const configMap = await core.readNamespacedConfigMap({ name: mount.configMap, namespace });
      const target = join(dir, 'pods', plan.pod, `volume-${String(index)}`);
      await rm(target, { recursive: true, force: true });
      await mkdir(target, { recursive: true });
      for (const [key, value] of Object.entries(configMap.data ?? {})) await writeFile(join(target, key), value);
      const flag = MOUNT_FLAGS[mount.mountPath];
      if (flag !== undefined) flags.push(flag, target);
    }
    const env: Record<string, string> = { ...plan.env, KUBECONFIG: kubeconfigPath };
    // Secret values would show in this process's argv (`env K=V`): the runner does not pass them
    if (plan.secretEnv.length > 0) this.options.logger.warn({ pod: plan.pod, env: plan.secretEnv.map((r) => r.env) }, 'secretKeyRef env not passed by the development runner');
    const port = await freePort();
    const process = new ManagedProcess({
      name: plan.pod, logFile: join(dir, 'logs', `${plan.pod}.log`),
      // `env` execs the program: the pid (and its process group) stays the one ManagedProcess stops
      command: 'env',
      args: [...Object.entries(env).map(([k, v]) => `${k}=${v}`), join('node_modules', '.bin', 'tsx'), plan.entrypoint, ...plan.args, ...flags, '--port', String(port)],
    });
    process.start();
    this.options.logger.info({ pod: plan.pod, port, pid: process.pid }, 'pod started as a local process');
    return { pod: plan.pod, env: plan.env, port, process };
  }

  /** Writes where each deviceShifu listens (for `edgeshifu call`), whole (by rename), in the order of the changes. */
  private publish(): Promise<void> {
    const deviceShifus = [...this.pods.values()].map((p) => ({
      pod: p.pod, edgeDevice: p.env.EDGEDEVICE_NAME, namespace: p.env.EDGEDEVICE_NAMESPACE, url: `http://127.0.0.1:${String(p.port)}`,
    }));
    const file = join(this.options.dir, DEVICESHIFUS_FILE);
    this.published = this.published.then(async () => {
      await writeFile(`${file}.tmp`, JSON.stringify({ deviceShifus }, null, 2));
      await rename(`${file}.tmp`, file);
    }).catch((err: unknown) => { this.options.logger.warn({ err: (err as Error).message }, `${DEVICESHIFUS_FILE} not written`); });
    return this.published;
  }

  private async remove(uid: string): Promise<void> {
    const local = this.pods.get(uid);
    if (local === undefined) return;
    this.pods.delete(uid);
    await local.process.stop();
    await this.publish();
    this.options.logger.info({ pod: local.pod }, 'pod gone: local process stopped');
  }
}
