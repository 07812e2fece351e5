// Secrets named by the EdgeDevice (MQTTServerSecret, OPCUASetting.CredentialsSecret). Under the
// controller the kubelet already delivers them as MQTT_USERNAME / MQTT_PASSWORD or OPCUA_PASSWORD
// (secretKeyRef in the generated Deployment), so the
// gateway needs no right to read Secrets; a deviceShifu deployed by hand reads it from the API.
import type { KubeClient } from '../../shared/kube/client.ts';
import { toKubeError } from '../../shared/kube/errors.ts';
import type { SecretReader } from '../drivers/driver.ts';

/** The credentials the kubelet put in the environment, if any. */
export function environmentCredentials(env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  // one device per deviceShifu: the controller sets the variables of its protocol only (OPC UA: the password)
  const { MQTT_USERNAME: username } = env;
  const password = env.MQTT_PASSWORD ?? env.OPCUA_PASSWORD;
  if (username === undefined && password === undefined) return undefined;
  return { ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) };
}

interface SecretObject {
  readonly data?: Readonly<Record<string, string>>;
  readonly stringData?: Readonly<Record<string, string>>;
}

export function kubeSecrets(client: KubeClient, namespace: string, env: NodeJS.ProcessEnv = process.env): SecretReader {
  return async (name) => {
    const delivered = environmentCredentials(env);
    if (delivered !== undefined) return delivered;
    try {
      const secret = await client.request<SecretObject>('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`);
      const data = Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')] as const);
      return { ...Object.fromEntries(data), ...(secret.stringData ?? {}) };
    } catch (err) {
      throw toKubeError(err, `read Secret ${namespace}/${name}`);
    }
  };
}
