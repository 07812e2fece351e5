// Holds chosen API requests of every KubeClient in this process until released, so a test can
// see what a controller does while one of its writes has not returned. Restored at teardown.
import type { ExecutionContext } from 'ava';
import { KubeClient } from '../../shared/kube/client.ts';

type RequestOptions = Parameters<KubeClient['request']>[2];

export interface HeldRequests {
  /** Requests waiting now. */
  readonly count: () => number;
  readonly holding: () => boolean;
  /** Lets every held request go, and holds no more. */
  readonly release: () => void;
}

/** `seen` is told of every request; one for which `hold` says true waits until `release`. */
export function holdRequests(
  t: ExecutionContext,
  hold: (method: string, path: string, options: RequestOptions) => boolean,
  seen: (method: string, path: string) => void = () => undefined,
): HeldRequests {
  const waiting: Array<() => void> = [];
  let holding = true;
  const original = Reflect.get<KubeClient, 'request'>(KubeClient.prototype, 'request');
  KubeClient.prototype.request = async function held<T>(this: KubeClient, method: string, path: string, options?: RequestOptions): Promise<T> {
    seen(method, path);
    if (holding && hold(method, path, options)) await new Promise<void>((resolve) => { waiting.push(resolve); });
    return original.call(this, method, path, options) as Promise<T>;
  };
  const release = (): void => {
    holding = false;
    for (const go of waiting.splice(0)) go();
  };
  t.teardown(() => {
    release();
    KubeClient.prototype.request = original;
  });
  return { count: () => waiting.length, holding: () => holding, release };
}
