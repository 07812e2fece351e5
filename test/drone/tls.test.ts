import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedBroker } from '../../shared/bus/broker.ts';
import { broadcastTopic } from '../../shared/bus/topics.ts';
import { droneBusClient } from '../../controller/drone/bus.ts';
import { droneCodec, type DroneMessage } from '../../controller/drone/messages/index.ts';
import { waitFor } from '../support/wait.ts';
import { password, user } from './support/brokers.ts';

function selfSigned(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'edgeshifu-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('over TLS a client that trusts the broker\'s certificate talks, one that does not never connects', async (t) => {
  const tls = selfSigned();
  const broker = new EmbeddedBroker({ owner: 'alpha', host: '127.0.0.1', port: 0, users: [user('alpha'), user('beta')], tls });
  const { url } = await broker.start();
  t.teardown(() => broker.stop());
  t.regex(url, /^mqtts:\/\/127\.0\.0\.1:\d+$/);
  const codec = droneCodec();
  const alpha = droneBusClient({ url, cluster: 'alpha', username: 'alpha', password: password('alpha'), tls: { ca: tls.cert } }, codec);
  t.teardown(() => alpha.stop());
  await alpha.start();
  const seen: DroneMessage[] = [];
  await alpha.subscribe(['edgeshifu/v1/+/fed/#'], (m) => seen.push(m));
  const beta = droneBusClient({ url, cluster: 'beta', username: 'beta', password: password('beta'), tls: { ca: tls.cert } }, codec);
  t.teardown(() => beta.stop());
  await beta.start();
  await beta.publish(broadcastTopic('beta', 'slice-advert'), { kind: 'slice-advert', offered: { cpu: 1, memory: 1 }, seq: 1, ttlMs: 1000 });
  await waitFor('the advert over TLS', () => (seen.length > 0 ? true : undefined), { timeoutMs: 5000 });
  const stranger = droneBusClient({ url, cluster: 'beta', username: 'beta', password: password('beta'), backoff: { initialMs: 50, maxMs: 200 } }, codec);
  t.teardown(() => stranger.stop());
  void stranger.start().catch(() => undefined);
  const error = await waitFor('a certificate error', () => stranger.lastError, { timeoutMs: 5000 });
  t.regex(error, /certificate/i);
  t.false(stranger.connected);
});
