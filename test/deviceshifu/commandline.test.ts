// HTTPCommandline: the command line composed from instruction and query (pure, table), and the
// driver posting it to the device's stub.
import test from 'ava';
import { composeCommand } from '../../deviceshifu/drivers/commandline.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { startGateway } from './support/device-shifu.ts';
import { commandlineStub } from './support/mocks.ts';

const EXEC = 'python /usr/src/driver/car.py';

const COMPOSED: ReadonlyArray<[string, string, string]> = [
  ['start', 'time=10:00:00&flags_no_parameter=-a,-c,--no-dependency&target=machine2', `${EXEC} start time=10:00:00 target=machine2 -a -c --no-dependency`],
  ['start', 'flags_no_parameter=-a&flags_no_parameter=--b', `${EXEC} start -a --b`],
  ['say', 'text=hello%20world', `${EXEC} say text='hello world'`],
  ['say', 'text=', `${EXEC} say text=`],
  ['stub_health', '', 'ls'],
  ['issue_cmd', 'flags_no_parameter=--version', '--version'],
];

for (const [instruction, query, expected] of COMPOSED) {
  test(`${instruction}?${query} composes to: ${expected}`, (t) => {
    t.is(composeCommand(EXEC, instruction, new URLSearchParams(query)), expected);
  });
}

const REFUSED: ReadonlyArray<[string, string, RegExp]> = [
  ['a value with a command substitution', 'x=$(reboot)', /quote, backtick, \$ or control character/],
  ['a value with a quote', "x=it's", /quote/],
  ['a value with a backtick', 'x=`id`', /backtick/],
  ['a value with a newline', 'x=a%0Areboot', /control character/],
  ['a name with a semicolon', 'a;reboot=1', /argument name "a;reboot" must be a plain word/],
  ['a flag that is not a flag', 'flags_no_parameter=;reboot', /flag ";reboot" must look like/],
  ['a repeated argument', 'x=1&x=2', /given 2 times/],
];

for (const [what, query, message] of REFUSED) {
  test(`${what} is refused as invalid`, (t) => {
    const error = t.throws(() => composeCommand(EXEC, 'run', new URLSearchParams(query)));
    t.true(isEdgeshifuError(error, 'invalid'));
    t.regex(error.message, message);
  });
}

test('the gateway posts the command as text to the stub with cmdTimeout, and refuses an injection with 400', async (t) => {
  const stub = await commandlineStub(t);
  const gateway = await startGateway(t, {
    data: { driverProperties: `driverExecution: "${EXEC}"\n`, instructions: 'instructionSettings:\n  defaultTimeoutSeconds: 7\ninstructions:\n  start:\n  stub_health:\n' },
    spec: { protocol: 'HTTPCommandline', address: stub.address },
  });
  const ok = await gateway.get('/start?speed=3&flags_no_parameter=-v', { method: 'POST' });
  t.is(ok.status, 200);
  t.is(await ok.text(), `ran: ${EXEC} start speed=3 -v`);
  t.deepEqual(stub.commands.at(-1), { command: `${EXEC} start speed=3 -v`, cmdTimeout: '7', contentType: 'text/plain; charset=utf-8' });
  const bad = await gateway.get('/start?speed=$(reboot)', { method: 'POST' });
  t.is(bad.status, 400);
  t.is(stub.commands.length, 1);
  t.is(await (await gateway.get('/stub_health?timeout=2')).text(), 'ran: ls');
  t.is(stub.commands.at(-1)?.cmdTimeout, '2');
});
