// Shifu's OPCUASetting → what the client needs (pure): endpoint, security mode and policy, the
// user identity and where its certificate files are. Every mistake is refused here, naming the
// field, before any connection is tried.
import { isAbsolute, join } from 'node:path';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';

export const SECURITY_MODES = ['None', 'Sign', 'SignAndEncrypt'] as const;
export type SecurityModeName = (typeof SECURITY_MODES)[number];
/** The policies node-opcua's client implements, by the name after '#' in the policy URI. */
export const SECURITY_POLICIES = ['None', 'Basic128Rsa15', 'Basic256', 'Basic256Sha256', 'Aes128_Sha256_RsaOaep', 'Aes256_Sha256_RsaPss'] as const;
export type SecurityPolicyName = (typeof SECURITY_POLICIES)[number];
export const AUTHENTICATION_MODES = ['Anonymous', 'UserName', 'Certificate', 'IssuedToken'] as const;

export type Identity =
  | { readonly mode: 'Anonymous' }
  | { readonly mode: 'UserName'; readonly username: string; readonly credentialsSecret?: string; readonly inlinePassword?: string }
  | { readonly mode: 'Certificate' };

export interface OpcuaPlan {
  readonly endpoint: string;
  readonly securityMode: SecurityModeName;
  readonly securityPolicy: SecurityPolicyName;
  readonly identity: Identity;
  /** Application instance certificate and key (PEM files), also the user certificate in Certificate mode. */
  readonly certificateFile?: string;
  readonly privateKeyFile?: string;
  readonly connectTimeoutMs: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

function oneOf<T extends string>(field: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  // Shifu's manifests also write full policy URIs: http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256
  const short = value.includes('#') ? value.slice(value.lastIndexOf('#') + 1) : value;
  const found = allowed.find((a) => a.toLowerCase() === short.toLowerCase());
  if (found === undefined) throw new EdgeshifuError('invalid', `OPCUASetting.${field} "${value}" is not one of ${allowed.join(', ')}`);
  return found;
}

function endpointOf(spec: EdgeDeviceSpec): string {
  const endpoint = spec.protocolSettings?.OPCUASetting?.OPCUAEndpoint ?? spec.address;
  if (endpoint === undefined || endpoint.trim() === '') throw new EdgeshifuError('invalid', 'an OPC UA device needs spec.address (opc.tcp://host:port/path) or OPCUASetting.OPCUAEndpoint');
  const withScheme = endpoint.includes('://') ? endpoint : `opc.tcp://${endpoint}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new EdgeshifuError('invalid', `OPC UA endpoint "${endpoint}" is not a URL such as opc.tcp://host:4840/path`);
  }
  if (url.protocol !== 'opc.tcp:') throw new EdgeshifuError('invalid', `OPC UA endpoint "${endpoint}" must use opc.tcp:// (node-opcua's client speaks the binary protocol only)`);
  if (url.port === '') url.port = '4840';
  return url.toString().replace(/\/$/, '');
}

function fileIn(dir: string, field: string, name: string | undefined): string | undefined {
  if (name === undefined || name === '') return undefined;
  if (isAbsolute(name) || name.split(/[\\/]/).includes('..')) throw new EdgeshifuError('invalid', `OPCUASetting.${field} "${name}" must be a file name inside the mounted Secret or ConfigMap, not a path`);
  return join(dir, name);
}

type Setting = NonNullable<NonNullable<EdgeDeviceSpec['protocolSettings']>['OPCUASetting']>;

function identityOf(s: Setting, hasCertificate: boolean): Identity {
  const mode = oneOf('AuthenticationMode', s.AuthenticationMode, AUTHENTICATION_MODES, 'Anonymous');
  if (mode === 'IssuedToken') throw new EdgeshifuError('invalid', 'OPCUASetting.AuthenticationMode IssuedToken is not supported: node-opcua\'s client offers Anonymous, UserName and Certificate identities');
  if (mode === 'Certificate') {
    if (!hasCertificate) throw new EdgeshifuError('invalid', 'OPCUASetting.AuthenticationMode Certificate needs CertificateFileName and PrivateKeyFileName (files of the mounted ConfigmapName or CredentialsSecret)');
    return { mode };
  }
  if (mode === 'Anonymous') return { mode };
  const username = s.Username ?? '';
  const secret = s.CredentialsSecret ?? '';
  const password = s.Password ?? '';
  if (username === '') throw new EdgeshifuError('invalid', 'OPCUASetting.AuthenticationMode UserName needs OPCUASetting.Username');
  if (secret === '' && password === '') throw new EdgeshifuError('invalid', 'OPCUASetting.AuthenticationMode UserName needs OPCUASetting.CredentialsSecret (a Secret with key password) or Password');
  return { mode, username, ...(secret === '' ? {} : { credentialsSecret: secret }), ...(password === '' ? {} : { inlinePassword: password }) };
}

/** `certificateDir`: where the ConfigMap or Secret with the certificate files is mounted. */
export function opcuaPlan(spec: EdgeDeviceSpec, certificateDir: string): OpcuaPlan {
  const s = spec.protocolSettings?.OPCUASetting ?? {};
  const securityMode = oneOf('SecurityMode', s.SecurityMode, SECURITY_MODES, 'None');
  const securityPolicy = oneOf('SecurityPolicy', s.SecurityPolicy, SECURITY_POLICIES, securityMode === 'None' ? 'None' : 'Basic256Sha256');
  if ((securityMode === 'None') !== (securityPolicy === 'None')) {
    throw new EdgeshifuError('invalid', `OPCUASetting.SecurityMode ${securityMode} needs ${securityMode === 'None' ? 'SecurityPolicy None (or none given)' : 'a SecurityPolicy other than None'}, not ${securityPolicy}`);
  }
  const certificateFile = fileIn(certificateDir, 'CertificateFileName', s.CertificateFileName);
  const privateKeyFile = fileIn(certificateDir, 'PrivateKeyFileName', s.PrivateKeyFileName);
  if ((certificateFile === undefined) !== (privateKeyFile === undefined)) throw new EdgeshifuError('invalid', 'OPCUASetting.CertificateFileName and PrivateKeyFileName go together: give both or neither');
  const identity = identityOf(s, certificateFile !== undefined);
  return {
    endpoint: endpointOf(spec), securityMode, securityPolicy, identity,
    ...(certificateFile === undefined ? {} : { certificateFile, privateKeyFile }),
    connectTimeoutMs: s.ConnectionTimeoutInMilliseconds !== undefined && s.ConnectionTimeoutInMilliseconds > 0 ? s.ConnectionTimeoutInMilliseconds : DEFAULT_CONNECT_TIMEOUT_MS,
  };
}
