// The development runner of the local edge stack. NOT a kubelet: there is no kubelet on this
// machine, so for every Pod bound to the local KWOK node it starts the container's entrypoint
// (`tsx <component source>`) as a local process, with the Pod's env and its ConfigMaps written out
// one file per key, as the volume would be, and stops it when the Pod goes away. As a kubelet
// would, it restarts a process that crashed (restarts.ts) and writes a changed ConfigMap into the
// volumes that mount it. No images, no isolation, no probes, no resource limits, no Pod status
// writes (KWOK writes those).
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig, V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import type { CoreV1Api } from '@kubernetes/client-node';
import { Informer } from '../../../shared/kube/informer.ts';
import type { Logger } from '../../../shared/log.ts';
import { ManagedProcess } from '../controlplane/process.ts';
import { freePort } from '../controlplane/ports.ts';
import { planLocalProcess, type LocalProcessPlan } from './pod-process.ts';
import { Restarting } from './restarts.ts';
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
  /** Restarts the process when it crashes. */
  readonly restarting: Restarting;
  /** The directory each mounted ConfigMap is written to, by ConfigMap name. */
  readonly volumes: ReadonlyMap<string, readonly string[]>;
}

export class DevelopmentRunner {
  private readonly options: RunnerOptions;
  private readonly informer: Informer<V1Pod>;
  private readonly configMaps: Informer<V1ConfigMap>;
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
    this.configMaps = new Informer<V1ConfigMap>({
      kc: options.kc, path: `/api/v1/namespaces/${namespace}/configmaps`, logger: options.logger,
      list: () => core.listNamespacedConfigMap({ namespace }),
    });
    this.configMaps.on('update', (configMap) => { void this.deliver(configMap); });
  }

  async start(): Promise<void> {
    await this.configMaps.start();
    await this.informer.start();
  }

  /** The running processes, by the EdgeDevice they serve (EDGEDEVICE_NAME) or the Pod name. */
  running(): LocalPod[] {
    return [...this.pods.values()].filter((p) => p.process.running);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
    await this.configMaps.stop();
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
    const volumes = new Map<string, string[]>();
    for (const [index, mount] of plan.configMaps.entries()) {
      const configMap = await core.readNamespacedConfigMap({ name: mount.configMap, namespace });
      const target = join(dir, 'pods', plan.pod, `volume-${String(index)}`);
      await rm(target, { recursive: true, force: true });
      await mkdir(target, { recursive: true });
      await writeVolume(target, configMap);
      volumes.set(mount.configMap, [...(volumes.get(mount.configMap) ?? []), target]);
      const flag = MOUNT_FLAGS[mount.mountPath];
      if (flag !== undefined) flags.push(flag, target);
    }
    const env: Record<string, string> = { ...plan.env, KUBECONFIG: kubeconfigPath };
    // Secret values would show in this process's argv (`env K=V`): the runner does not pass them
    if (plan.secretEnv.length > 0) this.options.logger.warn({ pod: plan.pod, env: plan.secretEnv.map((r) => r.env) }, 'secretKeyRef env not passed by the development runner');
    const port = await freePort();
    await mkdir(join(dir, 'logs'), { recursive: true });
    const process = new ManagedProcess({
      name: plan.pod, logFile: join(dir, 'logs', `${plan.pod}.log`),
      // `env` execs the program: the pid (and its process group) stays the one ManagedProcess stops
      command: 'env',
      args: [...Object.entries(env).map(([k, v]) => `${k}=${v}`), join('node_modules', '.bin', 'tsx'), plan.entrypoint, ...plan.args, ...flags, '--port', String(port)],
    });
    const restarting = new Restarting(process, this.options.logger);
    restarting.start();
    this.options.logger.info({ pod: plan.pod, port, pid: process.pid }, 'pod started as a local process');
    return { pod: plan.pod, env: plan.env, port, process, restarting, volumes };
  }

  /** A changed ConfigMap reaches every volume that mounts it, as the kubelet's volume update does. */
  private async deliver(configMap: V1ConfigMap): Promise<void> {
    const name = configMap.metadata?.name ?? '';
    for (const local of this.pods.values()) {
      for (const target of local.volumes.get(name) ?? []) {
        await writeVolume(target, configMap).then(
          () => { this.options.logger.info({ pod: local.pod, configMap: name }, 'ConfigMap change delivered'); },
          (err: unknown) => { this.options.logger.warn({ pod: local.pod, configMap: name, err: (err as Error).message }, 'ConfigMap change not delivered'); },
        );
      }
    }
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
    await local.restarting.stop();
    await this.publish();
    this.options.logger.info({ pod: local.pod }, 'pod gone: local process stopped');
  }
}

/** One file per key, each replaced whole (by rename), and the keys no longer in the ConfigMap removed. */
async function writeVolume(target: string, configMap: V1ConfigMap): Promise<void> {
  const data = configMap.data ?? {};
  for (const [key, value] of Object.entries(data)) {
    await writeFile(join(target, `.${key}.tmp`), value);
    await rename(join(target, `.${key}.tmp`), join(target, key));
  }
  for (const file of await readdir(target)) {
    if (!file.startsWith('.') && !(file in data)) await rm(join(target, file), { force: true });
  }
}
