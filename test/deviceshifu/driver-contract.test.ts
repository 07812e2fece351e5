// The contract every driver with instructions passes (one contract suite for all
// protocols): no crash without a device, 'unavailable' while it is away, pick-up once it is there
// (reconnect with backoff, no restart), aborts honoured, and a clean stop. One test at a time:
// run together, OPC UA's start (node-opcua's modules and nodeset, loaded synchronously) held this
// worker's event loop for seconds under load, and the Socket call's deadline ran out before the
// refused connection was seen (a 'timeout' instead of 'unavailable').
import test from 'ava';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { buildDriver, DRIVER_FIXTURES } from './support/drivers.ts';

for (const fixture of DRIVER_FIXTURES) {
  test.serial(`${fixture.protocol}: starts without its device, fails calls as unavailable, then picks the device up`, async (t) => {
    const port = await freePort();
    const built = await buildDriver(t, fixture.setup(port));
    const error = await t.throwsAsync(built.call(fixture.instruction, fixture.request));
    t.true(isEdgeshifuError(error, 'unavailable'), error.message);
    await t.throwsAsync(built.driver.probe(AbortSignal.timeout(2000)));
    const device = await fixture.startDevice(t, port);
    await waitFor(`${fixture.protocol} driver to reach its device`, async () => {
      await built.driver.probe(AbortSignal.timeout(2000));
      return true;
    }, { timeoutMs: 20_000 });
    const answer = await waitFor('a successful call', () => built.call(fixture.instruction, fixture.request), { timeoutMs: 10_000 });
    t.is(answer.status, 200);
    t.regex(answer.body, fixture.expected);
    await device.close();
  });

  test.serial(`${fixture.protocol}: survives a device restart without being restarted itself`, async (t) => {
    const port = await freePort();
    const built = await buildDriver(t, fixture.setup(port));
    const first = await fixture.startDevice(t, port);
    t.regex((await waitFor('a first call', () => built.call(fixture.instruction, fixture.request), { timeoutMs: 20_000 })).body, fixture.expected);
    await first.close();
    await waitFor('a call to fail while the device is down', async () => {
      try {
        await built.call(fixture.instruction, fixture.request);
        return undefined;
      } catch (err) {
        return isEdgeshifuError(err, 'unavailable') ? true : undefined;
      }
    }, { timeoutMs: 20_000 });
    await fixture.startDevice(t, port);
    const again = await waitFor('a call after the restart', () => built.call(fixture.instruction, fixture.request), { timeoutMs: 30_000 });
    t.regex(again.body, fixture.expected);
  });

  test.serial(`${fixture.protocol}: a call whose signal is already aborted does not reach the device`, async (t) => {
    const port = await freePort();
    const built = await buildDriver(t, fixture.setup(port));
    await fixture.startDevice(t, port);
    await waitFor('the device', () => built.call(fixture.instruction, fixture.request), { timeoutMs: 20_000 });
    const aborted = new AbortController();
    aborted.abort();
    await t.throwsAsync(built.call(fixture.instruction, { ...fixture.request, signal: aborted.signal }));
  });
}
