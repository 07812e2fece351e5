// The federation's trust material, kept in one private folder on the machine of whoever joins the
// clusters: a CA (EC P-256; openssl signs, since node:crypto cannot issue X.509 certificates) and
// one random federation key from which every login password and every member's Ed25519 signing
// key is derived (HMAC-SHA256). Deriving them means `edgeshifu federation join` can be run for
// each member separately, in any order, and both sides still agree on what a login's password is.
import { execFileSync } from 'node:child_process';
import { createHmac, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EdgeshifuError } from '../shared/errors.ts';

export interface FederationMaterial {
  readonly caCert: string;
  readonly caKey: string;
  /** 32 random bytes: the root of every derived password and signing key. */
  readonly secret: Buffer;
}

export interface MemberCertificate {
  readonly cert: string;
  readonly key: string;
}

const FILES = { caCert: 'ca.crt', caKey: 'ca.key', secret: 'federation.key' } as const;
const CA_DAYS = '3650';
const MEMBER_DAYS = '825';

function openssl(args: readonly string[], what: string): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? '';
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new EdgeshifuError('unavailable', missing ? `${what} needs the openssl command (Debian: apt-get install openssl)` : `${what} failed: openssl said ${stderr}`, { cause: err });
  }
}

function withScratch<T>(body: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'edgeshifu-pki-'));
  try {
    return body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The folder's material, made on first use (mode 0700, keys 0600); an incomplete folder is an error naming what is missing. */
export function federationMaterial(dir: string): { material: FederationMaterial; created: boolean } {
  const paths = { caCert: join(dir, FILES.caCert), caKey: join(dir, FILES.caKey), secret: join(dir, FILES.secret) };
  const present = Object.values(paths).filter((p) => existsSync(p));
  if (present.length === 0) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', CA_DAYS, '-sha256',
      '-subj', '/O=edgeshifu/CN=edgeshifu federation CA', '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:0',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', paths.caKey, '-out', paths.caCert], 'making the federation CA');
    chmodSync(paths.caKey, 0o600);
    writeFileSync(paths.secret, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  } else if (present.length < 3) {
    const missing = Object.values(FILES).filter((f) => !existsSync(join(dir, f)));
    throw new EdgeshifuError('invalid', `${dir} holds part of a federation's material (${missing.join(', ')} missing): restore it from your copy, or use an empty folder to start a new federation`);
  }
  const secret = Buffer.from(readFileSync(paths.secret, 'utf8').trim(), 'base64');
  if (secret.length !== 32) throw new EdgeshifuError('invalid', `${paths.secret} must hold 32 bytes in base64`);
  return { material: { caCert: readFileSync(paths.caCert, 'utf8'), caKey: readFileSync(paths.caKey, 'utf8'), secret }, created: present.length === 0 };
}

/** A server and client certificate for a member's broker, valid for each of `addresses` (host names or IPs), signed by the CA. */
export function issueMemberCertificate(material: FederationMaterial, cluster: string, addresses: readonly string[]): MemberCertificate {
  if (addresses.length === 0) throw new EdgeshifuError('invalid', `${cluster} needs at least one --address: the host name or IP neighbours reach its broker at`);
  const san = addresses.map((a) => (isIP(a) === 0 ? `DNS:${a}` : `IP:${a}`)).join(',');
  return withScratch((dir) => {
    const caCert = join(dir, 'ca.crt');
    const caKey = join(dir, 'ca.key');
    writeFileSync(caCert, material.caCert);
    writeFileSync(caKey, material.caKey, { mode: 0o600 });
    writeFileSync(join(dir, 'ext.cnf'), [`subjectAltName=${san}`, 'basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth,clientAuth', ''].join('\n'));
    openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/O=edgeshifu/CN=${cluster}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'csr.pem')], `making ${cluster}'s key`);
    openssl(['x509', '-req', '-in', join(dir, 'csr.pem'), '-CA', caCert, '-CAkey', caKey, '-set_serial', `0x${randomBytes(16).toString('hex')}`,
      '-days', MEMBER_DAYS, '-sha256', '-extfile', join(dir, 'ext.cnf'), '-out', join(dir, 'cert.pem')], `signing ${cluster}'s certificate`);
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  });
}

function derive(material: FederationMaterial, label: string): Buffer {
  return createHmac('sha256', material.secret).update(label).digest();
}

/** The password `login` uses on `broker`'s broker (the same whichever member's command derives it). */
export function loginPassword(material: FederationMaterial, login: string, broker: string): string {
  return derive(material, `edgeshifu login ${login} on ${broker}`).toString('base64url');
}

// PKCS#8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410).
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A member's Ed25519 signing key (its messages are signed with it; neighbours check them against its public half). */
export function signingKey(material: FederationMaterial, cluster: string): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, derive(material, `edgeshifu signing ${cluster}`)]), format: 'der', type: 'pkcs8' });
}

export function signingKeyPems(key: KeyObject): { privatePem: string; publicPem: string } {
  return { privatePem: key.export({ type: 'pkcs8', format: 'pem' }).toString(), publicPem: createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString() };
}
