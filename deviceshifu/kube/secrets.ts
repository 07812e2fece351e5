// Secrets named by the EdgeDevice (MQTTServerSecret). Under the controller the kubelet already
// delivers them as MQTT_USERNAME / MQTT_PASSWORD (secretKeyRef in the generated Deployment), so the
// gateway needs no right to read Secrets; a deviceShifu deployed by hand reads it from the API.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { toKubeError } from '../../shared/kube/errors.ts';
import type { SecretReader } from '../drivers/driver.ts';

/** The credentials the kubelet put in the environment, if any. */
export function environmentCredentials(env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  const { MQTT_USERNAME: username, MQTT_PASSWORD: password } = env;
  if (username === undefined && password === undefined) return undefined;
  return { ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) };
}

export function kubeSecrets(kc: KubeConfig, namespace: string, env: NodeJS.ProcessEnv = process.env): SecretReader {
  const core = kc.makeApiClient(CoreV1Api);
  return async (name) => {
    const delivered = environmentCredentials(env);
    if (delivered !== undefined) return delivered;
    try {
      const secret = await core.readNamespacedSecret({ name, namespace });
      const data = Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')] as const);
      return { ...Object.fromEntries(data), ...(secret.stringData ?? {}) };
    } catch (err) {
      throw toKubeError(err, `read Secret ${namespace}/${name}`);
    }
  };
}
