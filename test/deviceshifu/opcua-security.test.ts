// Signed and encrypted OPC UA sessions with certificates the test makes: deviceShifu's
// application certificate and key come by file name from the mounted directory
// (--opcua-certificate-dir), the mock server trusts that certificate alone, and it records the
// security mode and policy of every session it activates.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPCUACertificateManager } from 'node-opcua-certificate-manager';
import { convertPEMtoDER } from 'node-opcua-crypto';
import { waitFor } from '../support/wait.ts';
import { opcuaGateway, opcuaMock, readWhenUp, type ErrorReply } from './support/opcua.ts';

interface ClientCertificate { dir: string; der: Buffer }

/** A self-signed application certificate (client.pem) and its key (client.key) in a fresh directory. */
async function makeCertificate(t: ExecutionContext, name: string): Promise<ClientCertificate> {
  const pki = await mkdtemp(join(tmpdir(), 'opcua-test-pki-'));
  const dir = await mkdtemp(join(tmpdir(), 'opcua-test-cert-'));
  t.teardown(() => Promise.all([rm(pki, { recursive: true, force: true }), rm(dir, { recursive: true, force: true })]));
  const manager = new OPCUACertificateManager({ rootFolder: pki });
  await manager.initialize();
  await manager.createSelfSignedCertificate({
    applicationUri: `urn:edgeshifu:test:${name}`, subject: `/CN=${name}`, dns: ['localhost'], startDate: new Date(), validity: 7, outputFile: join(dir, 'client.pem'),
  });
  await copyFile(manager.privateKey, join(dir, 'client.key'));
  await manager.dispose();
  return { dir, der: convertPEMtoDER(await readFile(join(dir, 'client.pem'), 'utf8')) };
}

for (const [mode, policy] of [['Sign', 'Basic256Sha256'], ['SignAndEncrypt', 'Basic256Sha256'], ['SignAndEncrypt', 'Aes256_Sha256_RsaPss']] as const) {
  test(`${mode} with ${policy}: the session runs on the test's certificate`, async (t) => {
    const certificate = await makeCertificate(t, 'deviceshifu');
    const mock = await opcuaMock(t, { trustedCertificates: [certificate.der] });
    const pkiDir = await mkdtemp(join(tmpdir(), 'opcua-client-pki-'));
    t.teardown(() => rm(pkiDir, { recursive: true, force: true }));
    const gateway = await opcuaGateway(t, {
      endpoint: mock.endpoint,
      setting: { SecurityMode: mode, SecurityPolicy: `http://opcfoundation.org/UA/SecurityPolicy#${policy}`, CertificateFileName: 'client.pem', PrivateKeyFileName: 'client.key' },
      argv: ['--opcua-certificate-dir', certificate.dir, '--opcua-pki-dir', pkiDir],
    });
    t.is(await (await readWhenUp(gateway, '/temperature')).text(), '21.5');
    t.is((await gateway.get('/label', { method: 'POST', body: '{"value": "secured"}' })).status, 200);
    t.is(mock.value(5), 'secured');
    t.deepEqual([...new Set(mock.sessions)], [`${mode} ${policy}`]);
  });
}

test('a certificate the server does not trust is refused with 403; a mode without a policy is refused before connecting', async (t) => {
  const trusted = await makeCertificate(t, 'trusted');
  const stranger = await makeCertificate(t, 'stranger');
  const mock = await opcuaMock(t, { trustedCertificates: [trusted.der] });
  const gateway = await opcuaGateway(t, {
    endpoint: mock.endpoint,
    setting: { SecurityMode: 'SignAndEncrypt', SecurityPolicy: 'Basic256Sha256', CertificateFileName: 'client.pem', PrivateKeyFileName: 'client.key' },
    argv: ['--opcua-certificate-dir', stranger.dir],
  });
  const refused = await waitFor('a refusal of the untrusted certificate', async () => {
    const r = await gateway.get('/temperature');
    const body = await r.json() as ErrorReply;
    return r.status !== 200 && !body.error.message.includes('not connected') ? { status: r.status, body } : undefined;
  }, { timeoutMs: 15_000 });
  t.log(refused);
  t.is(refused.status, 403);
  t.is(mock.sessions.length, 0);
  const bad = await opcuaGateway(t, { endpoint: mock.endpoint, setting: { SecurityMode: 'Sign', SecurityPolicy: 'None' } });
  const reply = await bad.get('/temperature');
  t.is(reply.status, 502);
  t.true(bad.logs.some((l) => l.includes('OPCUASetting.SecurityMode Sign needs a SecurityPolicy other than None, not None')));
});

test('AuthenticationMode Certificate: the same certificate is the user identity the server checks', async (t) => {
  const certificate = await makeCertificate(t, 'operator');
  const mock = await opcuaMock(t, { trustedCertificates: [certificate.der], userCertificates: [certificate.der] });
  const gateway = await opcuaGateway(t, {
    endpoint: mock.endpoint,
    setting: { SecurityMode: 'SignAndEncrypt', SecurityPolicy: 'Basic256Sha256', AuthenticationMode: 'Certificate', CertificateFileName: 'client.pem', PrivateKeyFileName: 'client.key' },
    argv: ['--opcua-certificate-dir', certificate.dir],
  });
  t.is(await (await readWhenUp(gateway, '/temperature')).text(), '21.5');
  t.deepEqual([...new Set(mock.identities)], ['X509IdentityToken']);
  // a server that trusts the channel's certificate but not as a user refuses the session: 403
  const strict = await opcuaMock(t, { trustedCertificates: [certificate.der] });
  const refusedGateway = await opcuaGateway(t, {
    endpoint: strict.endpoint,
    setting: { SecurityMode: 'SignAndEncrypt', SecurityPolicy: 'Basic256Sha256', AuthenticationMode: 'Certificate', CertificateFileName: 'client.pem', PrivateKeyFileName: 'client.key' },
    argv: ['--opcua-certificate-dir', certificate.dir],
  });
  const refused = await waitFor('a 403 for the untrusted user certificate', async () => {
    const r = await refusedGateway.get('/temperature');
    return r.status === 403 ? await r.json() as ErrorReply : undefined;
  }, { timeoutMs: 15_000 });
  t.regex(refused.error.message, /refused the session with Bad\w+/);
  t.deepEqual(strict.identities, []);
});
