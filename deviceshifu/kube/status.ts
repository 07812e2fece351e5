// The EdgeDevice phase written with a JSON merge patch to the status subresource: only
// status.edgedevicephase changes, nothing is read first (Shifu GETs and PUTs the whole object).
import type { KubeClient } from '../../shared/kube/client.ts';
import { toKubeError } from '../../shared/kube/errors.ts';
import type { Logger } from '../../shared/log.ts';
import type { StatusReporter } from '../drivers/driver.ts';
import type { PhasePatcher } from '../status/writer.ts';
import { edgeDevicesPath } from './edgedevice-watch.ts';

export function edgeDevicePhasePatcher(client: KubeClient, name: string, namespace: string): PhasePatcher {
  const path = `${edgeDevicesPath(namespace)}/${encodeURIComponent(name)}/status`;
  return async (phase) => {
    try {
      await client.request('PATCH', path, { contentType: 'application/merge-patch+json', body: { status: { edgedevicephase: phase } } });
    } catch (err) {
      throw toKubeError(err, `patch status of EdgeDevice ${namespace}/${name}`);
    }
  };
}

/** How long a failed status write waits before it is tried again. */
const RETRY_MS = 5000;

/**
 * A driver's status fields (status.lwm2m), merge-patched on the status subresource: the newest
 * value of each field wins, one write at a time, and a failed write is tried again after RETRY_MS
 * with whatever is newest by then.
 */
export function edgeDeviceStatusReporter(client: KubeClient, device: { name: string; namespace: string }, logger: Logger): StatusReporter {
  const path = `${edgeDevicesPath(device.namespace)}/${encodeURIComponent(device.name)}/status`;
  let pending: Record<string, unknown> | undefined;
  let writing = false;
  let retry: NodeJS.Timeout | undefined;
  const flush = async (): Promise<void> => {
    if (writing || retry !== undefined || pending === undefined) return;
    const body = pending;
    pending = undefined;
    writing = true;
    try {
      await client.request('PATCH', path, { contentType: 'application/merge-patch+json', body: { status: body } });
    } catch (err) {
      // a newer value that came meanwhile wins over the one that failed
      pending = { ...body, ...(pending as Record<string, unknown> | undefined) };
      logger.warn({ fields: Object.keys(body), err: toKubeError(err, 'patch status').message }, 'writing the EdgeDevice status failed; retrying');
      retry = setTimeout(() => { retry = undefined; void flush(); }, RETRY_MS);
      retry.unref();
    } finally {
      writing = false;
    }
    void flush();
  };
  return (status) => {
    pending = { ...pending, ...status };
    void flush();
  };
}
