// The OPC UA driver through the gateway against the mock server (node-opcua's) on 127.0.0.1:
// reads of every type, writes converted to the node's DataType, and each status code's mapping.
import test from 'ava';
import { opcuaGateway, opcuaMock, readWhenUp, type ErrorReply } from './support/opcua.ts';

const JSON_ACCEPT = { headers: { accept: 'application/json' } };

test('GET reads each type as text (as Shifu answers) and as JSON with its DataType', async (t) => {
  const mock = await opcuaMock(t);
  const gateway = await opcuaGateway(t, { endpoint: mock.endpoint });
  t.is(await (await readWhenUp(gateway, '/temperature')).text(), '21.5');
  const cases: Array<[string, unknown, string]> = [
    ['temperature', 21.5, 'Double'], ['running', true, 'Boolean'], ['label', 'press-1', 'String'], ['setpoint', 100, 'Int32'],
    ['speed', 1.5, 'Float'], ['level', 7, 'UInt16'], ['total', 5, 'Int64'], ['serial', 'SN-0042', 'String'],
  ];
  for (const [name, value, dataType] of cases) {
    const reply = await gateway.get(`/${name}`, JSON_ACCEPT);
    t.is(reply.status, 200, name);
    t.like(await reply.json(), { value, dataType, statusCode: 'Good' }, name);
  }
  t.is(await (await gateway.get('/product_name')).text(), 'edgeshifu mock OPC UA device');
  const time = await (await gateway.get('/server_time')).text();
  t.regex(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.true(Math.abs(Date.parse(time) - Date.now()) < 60_000);
});

test('POST and PUT write {"value": X} converted to the node\'s DataType', async (t) => {
  const mock = await opcuaMock(t);
  const gateway = await opcuaGateway(t, { endpoint: mock.endpoint });
  await readWhenUp(gateway, '/temperature');
  const writes: Array<[string, unknown, unknown, string]> = [
    ['temperature', 30.25, 30.25, 'Double'], ['running', false, false, 'Boolean'], ['label', 'press-2', 'press-2', 'String'],
    ['setpoint', -2147483648, -2147483648, 'Int32'], ['setpoint', '17', 17, 'Int32'], ['speed', 2.5, 2.5, 'Float'], ['level', 65535, 65535, 'UInt16'],
    ['total', '9007199254740993', '9007199254740993', 'Int64'], ['total', -3, -3, 'Int64'],
  ];
  for (const [name, value, readBack, dataType] of writes) {
    for (const method of ['POST', 'PUT']) {
      const reply = await gateway.get(`/${name}`, { method, body: JSON.stringify({ value }) });
      t.is(reply.status, 200, `${method} ${name} ${JSON.stringify(value)}`);
      t.like(await reply.json(), { dataType, statusCode: 'Good' });
      t.like(await (await gateway.get(`/${name}`, JSON_ACCEPT)).json(), { value: readBack, dataType });
    }
  }
  t.is(mock.value(5), 'press-2');
});

test('a value that does not fit the node\'s DataType is a 400 naming the type; the node keeps its value', async (t) => {
  const mock = await opcuaMock(t);
  const gateway = await opcuaGateway(t, { endpoint: mock.endpoint });
  await readWhenUp(gateway, '/temperature');
  const bad: Array<[string, unknown, RegExp]> = [
    ['setpoint', 'abc', /holds Int32: expected an integer from -2147483648 to 2147483647, got "abc"/],
    ['setpoint', 2147483648, /holds Int32: expected an integer/],
    ['setpoint', 1.5, /holds Int32/],
    ['level', -1, /holds UInt16: expected an integer from 0 to 65535/],
    ['temperature', 'warm', /holds Double: expected a finite number, got "warm"/],
    ['speed', 1e39, /holds Float: expected a finite number within/],
    ['running', 'yes', /holds Boolean: expected true or false, got "yes"/],
    ['label', 42, /holds String: expected a string, got 42/],
    ['total', '1e3', /holds Int64/],
  ];
  for (const [name, value, message] of bad) {
    const reply = await gateway.get(`/${name}`, { method: 'POST', body: JSON.stringify({ value }) });
    t.is(reply.status, 400, `${name} ${JSON.stringify(value)}`);
    const { error } = await reply.json() as ErrorReply;
    t.like(error, { kind: 'invalid', instruction: name });
    t.regex(error.message, message);
  }
  for (const body of ['not json', '[1]', '{"val": 1}']) {
    const reply = await gateway.get('/setpoint', { method: 'POST', body });
    t.is(reply.status, 400);
    t.regex((await reply.json() as ErrorReply).error.message, /\{"value": <the value to write>\}/);
  }
  t.is(mock.value(6), 100);
  t.is(mock.value(4), true);
});

test('status codes: unknown node 404, malformed node id 400, read-only 403, device failure 502, slow read 504; the rest keeps working', async (t) => {
  const mock = await opcuaMock(t, { slowMs: 3000 });
  const gateway = await opcuaGateway(t, {
    endpoint: mock.endpoint,
    nodes: { temperature: 'ns=2;i=3', missing: 'ns=2;i=999', malformed: 'ns=2;x=oops', empty: ' ', serial: 'ns=2;i=10', counter: 'ns=2;i=2', faulty: 'ns=2;i=21', slow: 'ns=2;i=20' },
  });
  await readWhenUp(gateway, '/temperature');
  const expectError = async (path: string, init: RequestInit | undefined, [status, kind]: [number, string], message: RegExp): Promise<void> => {
    const reply = await gateway.get(path, init);
    t.is(reply.status, status, path);
    const { error } = await reply.json() as ErrorReply;
    t.is(error.kind, kind, path);
    t.regex(error.message, message, path);
  };
  await expectError('/missing', undefined, [404, 'not-found'], /BadNodeIdUnknown to read node ns=2;i=999: the server has no such node/);
  await expectError('/missing', { method: 'POST', body: '{"value": 1}' }, [404, 'not-found'], /BadNodeIdUnknown/);
  await expectError('/malformed', undefined, [400, 'invalid'], /OPCUANodeID "ns=2;x=oops" is not an OPC UA node id; write it as ns=<index>;i=<number>/);
  await expectError('/empty', undefined, [400, 'invalid'], /has no protocolPropertyList.OPCUANodeID/);
  await expectError('/serial', { method: 'PUT', body: '{"value": "SN-1"}' }, [403, 'forbidden'], /BadNotWritable to write node ns=2;i=10: the node is read-only/);
  await expectError('/counter', { method: 'POST', body: '{"value": 5}' }, [403, 'forbidden'], /BadNotWritable/);
  await expectError('/faulty', undefined, [502, 'unavailable'], /BadDeviceFailure to read node ns=2;i=21/);
  await expectError('/slow?timeout=0.5', undefined, [504, 'timeout'], /./);
  t.is(mock.value(10), 'SN-0042');
  t.is(await (await gateway.get('/temperature')).text(), '21.5');
  t.is(await (await gateway.get('/slow?timeout=10')).text(), '3.14');
});
