// Certificates for a test control plane, made with the openssl CLI (Node's crypto makes keys but
// not X.509 certificates). EC P-256 keys: fast to make, accepted by every component.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { errorMessage } from '../../../shared/errors.ts';

const run = promisify(execFile);

export interface Pki {
  readonly dir: string;
  readonly caCert: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
  /** The API server's client certificate towards kubelets (system:masters; a real node checks it). */
  readonly kubeletClientCert: string;
  readonly kubeletClientKey: string;
}

async function openssl(args: readonly string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (err) {
    const message = errorMessage(err);
    throw new Error(`openssl ${args[0] ?? ''} failed (is openssl installed? 'apt-get install openssl'): ${message}`);
  }
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export async function issue(pki: { caCert: string; caKey: string }, out: { cert: string; key: string }, subj: string, ext: string): Promise<void> {
  await openssl(['req', '-x509', ...EC_KEY, '-keyout', out.key, '-out', out.cert, '-days', '3650',
    '-subj', subj, '-CA', pki.caCert, '-CAkey', pki.caKey, '-addext', ext]);
}

/** Makes a CA, the API server's serving and kubelet-client certificates, an admin client certificate and the service-account key pair. */
export async function makePki(dir: string, apiAddress = '127.0.0.1'): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const f = (name: string): string => join(dir, name);
  const pki: Pki = {
    dir, caCert: f('ca.crt'), caKey: f('ca.key'), servingCert: f('apiserver.crt'), servingKey: f('apiserver.key'),
    adminCert: f('admin.crt'), adminKey: f('admin.key'), serviceAccountKey: f('sa.key'), serviceAccountPub: f('sa.pub'),
    kubeletClientCert: f('apiserver-kubelet-client.crt'), kubeletClientKey: f('apiserver-kubelet-client.key'),
  };
  await openssl(['req', '-x509', ...EC_KEY, '-keyout', pki.caKey, '-out', pki.caCert, '-days', '3650',
    '-subj', '/CN=edgeshifu-test-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const extra = apiAddress === '127.0.0.1' ? '' : `IP:${apiAddress},`;
  const sans = `subjectAltName=${extra}IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1`;
  await Promise.all([
    issue(pki, { cert: pki.servingCert, key: pki.servingKey }, '/CN=kube-apiserver', sans),
    issue(pki, { cert: pki.adminCert, key: pki.adminKey }, '/O=system:masters/CN=edgeshifu-admin', 'extendedKeyUsage=clientAuth'),
    issue(pki, { cert: pki.kubeletClientCert, key: pki.kubeletClientKey }, '/O=system:masters/CN=kube-apiserver-kubelet-client', 'extendedKeyUsage=clientAuth'),
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', pki.serviceAccountKey]),
  ]);
  await openssl(['ec', '-in', pki.serviceAccountKey, '-pubout', '-out', pki.serviceAccountPub]);
  return pki;
}
