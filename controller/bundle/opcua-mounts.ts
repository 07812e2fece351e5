// What an OPC UA deviceShifu needs mounted (pure): the certificate files named by
// CertificateFileName and PrivateKeyFileName, from Shifu's ConfigmapName and/or the
// CredentialsSecret, projected into one directory at Shifu's path; the password from the Secret
// through the kubelet (the gateway has no right to read Secrets); and a writable /tmp, as the root
// filesystem is read-only and node-opcua keeps its PKI store and lock files there.
import type { V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';

export const OPCUA_CERTIFICATE_PATH = '/etc/edgedevice/certificate';

export interface Mounts {
  readonly env: V1EnvVar[];
  readonly volumes: V1Volume[];
  readonly volumeMounts: V1VolumeMount[];
}

export function opcuaMounts(spec: EdgeDeviceSpec): Mounts {
  if (spec.protocol !== 'OPCUA') return { env: [], volumes: [], volumeMounts: [] };
  const setting = spec.protocolSettings?.OPCUASetting ?? {};
  const configMap = setting.ConfigmapName ?? '';
  const secret = setting.CredentialsSecret ?? '';
  const volumes: V1Volume[] = [{ name: 'tmp', emptyDir: { sizeLimit: '16Mi' } }];
  const volumeMounts: V1VolumeMount[] = [{ name: 'tmp', mountPath: '/tmp' }];
  const sources = [
    ...(configMap === '' ? [] : [{ configMap: { name: configMap } }]),
    ...(secret === '' ? [] : [{ secret: { name: secret } }]),
  ];
  if (sources.length > 0) {
    volumes.push({ name: 'opcua-certificates', projected: { sources, defaultMode: 0o440 } });
    volumeMounts.push({ name: 'opcua-certificates', mountPath: OPCUA_CERTIFICATE_PATH, readOnly: true });
  }
  const env: V1EnvVar[] = secret === '' ? [] : [{ name: 'OPCUA_PASSWORD', valueFrom: { secretKeyRef: { name: secret, key: 'password', optional: true } } }];
  return { env, volumes, volumeMounts };
}
