// Shifu's OPCUASetting read into a connection plan (pure): defaults, Shifu's spellings, and each
// mistake refused before any connection with the field to fix.
import test from 'ava';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { opcuaPlan, type OpcuaPlan } from '../../deviceshifu/drivers/opcua-settings.ts';

type Setting = NonNullable<NonNullable<EdgeDeviceSpec['protocolSettings']>['OPCUASetting']>;
const plan = (setting: Setting, address = 'opc.tcp://plc:4840/freeopcua/server'): OpcuaPlan => opcuaPlan({ protocol: 'OPCUA', address, protocolSettings: { OPCUASetting: setting } }, '/certs');

test('defaults: no security, anonymous, 5 s, the address as endpoint (port 4840 when absent)', (t) => {
  t.deepEqual(plan({}), { endpoint: 'opc.tcp://plc:4840/freeopcua/server', securityMode: 'None', securityPolicy: 'None', identity: { mode: 'Anonymous' }, connectTimeoutMs: 5000 });
  t.is(plan({}, 'plc').endpoint, 'opc.tcp://plc:4840');
  t.is(plan({ OPCUAEndpoint: 'opc.tcp://other:4841' }).endpoint, 'opc.tcp://other:4841');
});

test('Shifu\'s spellings: policy URIs, any case, certificate files inside the mounted directory', (t) => {
  const p = plan({ SecurityMode: 'signandencrypt', SecurityPolicy: 'http://opfoundation.org/UA/SecurityPolicy#Basic256Sha256', AuthenticationMode: 'Certificate', CertificateFileName: 'c.pem', PrivateKeyFileName: 'k.pem', ConnectionTimeoutInMilliseconds: 900 });
  t.like(p, { securityMode: 'SignAndEncrypt', securityPolicy: 'Basic256Sha256', identity: { mode: 'Certificate' }, certificateFile: '/certs/c.pem', privateKeyFile: '/certs/k.pem', connectTimeoutMs: 900 });
  t.is(plan({ SecurityMode: 'Sign' }).securityPolicy, 'Basic256Sha256', 'signing without a policy takes Basic256Sha256');
  t.like(plan({ AuthenticationMode: 'UserName', Username: 'op', CredentialsSecret: 'login' }).identity, { mode: 'UserName', username: 'op', credentialsSecret: 'login' });
});

const REFUSED: ReadonlyArray<[Setting, string, RegExp]> = [
  [{ SecurityMode: 'Encrypt' }, 'opc.tcp://plc:4840', /OPCUASetting.SecurityMode "Encrypt" is not one of None, Sign, SignAndEncrypt/],
  [{ SecurityMode: 'Sign', SecurityPolicy: 'None' }, 'opc.tcp://plc:4840', /SecurityMode Sign needs a SecurityPolicy other than None/],
  [{ SecurityPolicy: 'Basic256Sha256' }, 'opc.tcp://plc:4840', /SecurityMode None needs SecurityPolicy None/],
  [{ SecurityMode: 'Sign', SecurityPolicy: 'Rot13' }, 'opc.tcp://plc:4840', /SecurityPolicy "Rot13" is not one of/],
  [{ AuthenticationMode: 'IssuedToken', IssuedToken: 'x' }, 'opc.tcp://plc:4840', /IssuedToken is not supported/],
  [{ AuthenticationMode: 'UserName' }, 'opc.tcp://plc:4840', /needs OPCUASetting.Username/],
  [{ AuthenticationMode: 'UserName', Username: 'op' }, 'opc.tcp://plc:4840', /needs OPCUASetting.CredentialsSecret \(a Secret with key password\) or Password/],
  [{ AuthenticationMode: 'Certificate' }, 'opc.tcp://plc:4840', /Certificate needs CertificateFileName and PrivateKeyFileName/],
  [{ CertificateFileName: 'c.pem' }, 'opc.tcp://plc:4840', /CertificateFileName and PrivateKeyFileName go together/],
  [{ CertificateFileName: '../../etc/shadow', PrivateKeyFileName: 'k' }, 'opc.tcp://plc:4840', /must be a file name inside the mounted Secret or ConfigMap, not a path/],
  [{}, 'http://plc:4840', /must use opc.tcp:\/\//],
];

test('mistakes are refused naming the field', (t) => {
  for (const [setting, address, message] of REFUSED) t.throws(() => plan(setting, address), { message }, JSON.stringify(setting));
});
