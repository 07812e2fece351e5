// `edgeshifu call <device> <instruction>`: one HTTP request to the device's deviceShifu, as an
// application would make it. On a local stack it goes straight to the port the development runner
// serves the deviceShifu on (deviceshifus.json); anywhere else through the API server's service
// proxy to the deviceShifu Service (`<device>.deviceshifu:80`), which works wherever kubectl does.
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { EdgeshifuError, errorMessage } from '../../shared/errors.ts';
import { listOption, numberOption, stringOption, UsageError, type CommandSpec, type Invocation } from '../args.ts';
import { paths } from '../cluster.ts';
import type { CliContext } from '../context.ts';
import { fetchFailure, type HttpReply } from '../controller-access.ts';
import type { LocalDeviceShifu } from '../local-stack.ts';

export const spec: CommandSpec = {
  name: 'call',
  summary: 'call an instruction of a device through its deviceShifu and print the answer',
  details: [
    'The answer\'s body goes to stdout; an answer other than 2xx exits 1 with the status and body on stderr.',
    'Local stack: straight to the deviceShifu the development runner serves; elsewhere: through the API server',
    '(/api/v1/namespaces/deviceshifu/services/<device>:80/proxy/<instruction>).',
  ],
  positionals: [
    { name: 'device', description: 'the EdgeDevice (its deviceShifu Service has the same name)' },
    { name: 'instruction', description: 'an instruction of its ConfigMap, e.g. read_value' },
  ],
  options: {
    method: { type: 'string', short: 'X', value: 'method', description: 'HTTP method (default GET, or POST with --data)' },
    data: { type: 'string', short: 'd', value: 'body', description: 'request body; @file reads a file, @- stdin' },
    param: { type: 'string', short: 'p', multiple: true, value: 'key=value', description: 'query parameter' },
    'content-type': { type: 'string', value: 'type', description: 'Content-Type of --data (default text/plain)' },
    namespace: { type: 'string', short: 'n', value: 'namespace', description: 'the EdgeDevice\'s namespace, where names repeat (local stack only)' },
    'deviceshifu-namespace': { type: 'string', value: 'namespace', default: 'deviceshifu', description: 'namespace of the deviceShifu Services' },
    timeout: { type: 'string', value: 'seconds', default: '30', description: 'give up after this long' },
  },
  outputs: ['raw', 'json'],
  examples: [
    'edgeshifu call edgedevice-thermometer read_value',
    'edgeshifu call robot-arm move --method POST --data \'{"x": 1}\' --content-type application/json',
    'edgeshifu call plate-reader get_measurement --param wells=96 -o json',
  ],
};

export interface DeviceRequest {
  readonly method: string;
  /** `/<instruction>?<params>`, each part encoded. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
}

/** The request from the command line (pure once --data is read). */
export function deviceRequest(instruction: string, params: readonly string[], options: { method?: string; data?: string; contentType?: string }): DeviceRequest {
  if (instruction === '' || instruction.includes('/')) throw new UsageError(`the instruction "${instruction}" must be one name, as in the device's ConfigMap (no "/")`, 'call');
  const query = new URLSearchParams();
  for (const param of params) {
    const at = param.indexOf('=');
    if (at <= 0) throw new UsageError(`--param ${param}: write it as key=value`, 'call');
    query.append(param.slice(0, at), param.slice(at + 1));
  }
  const method = (options.method ?? (options.data === undefined ? 'GET' : 'POST')).toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`--method ${method}: not an HTTP method`, 'call');
  const search = query.toString();
  return {
    method, path: `/${encodeURIComponent(instruction)}${search === '' ? '' : `?${search}`}`,
    ...(options.data === undefined ? {} : { body: options.data, contentType: options.contentType ?? 'text/plain' }),
  };
}

async function readData(data: string | undefined): Promise<string | undefined> {
  if (data === undefined || !data.startsWith('@')) return data;
  if (data === '@-') return text(process.stdin);
  return readFile(data.slice(1), 'utf8').catch((err: unknown) => {
    throw new EdgeshifuError('invalid', `--data ${data}: cannot read the file (${errorMessage(err)})`);
  });
}

function pickLocal(local: readonly LocalDeviceShifu[], device: string, namespace: string | undefined): LocalDeviceShifu {
  const matches = local.filter((d) => d.edgeDevice === device && (namespace === undefined || d.namespace === namespace));
  const [only] = matches;
  if (only === undefined) {
    throw new EdgeshifuError('not-found', `the local stack runs no deviceShifu for ${namespace === undefined ? '' : `${namespace}/`}${device}: is the EdgeDevice there and placed (edgeshifu device list)? Running: ${local.map((d) => `${d.namespace}/${d.edgeDevice}`).join(', ') || 'none'}`);
  }
  if (matches.length > 1) throw new UsageError(`${device} exists in namespaces ${matches.map((m) => m.namespace).join(', ')}: pass --namespace`, 'call');
  return only;
}

async function callLocal(target: LocalDeviceShifu, request: DeviceRequest, timeoutMs: number): Promise<HttpReply> {
  try {
    const reply = await fetch(`${target.url}${request.path}`, {
      method: request.method, body: request.body, signal: AbortSignal.timeout(timeoutMs),
      headers: request.contentType === undefined ? {} : { 'content-type': request.contentType },
    });
    return { status: reply.status, contentType: reply.headers.get('content-type') ?? '', body: await reply.text() };
  } catch (err) {
    throw new EdgeshifuError('unavailable', `the deviceShifu of ${target.edgeDevice} at ${target.url} does not answer: ${fetchFailure(err)} (the development runner's process may have stopped: see the stack's logs/${target.pod}.log)`, { cause: err });
  }
}

/** The API server's own Status in place of the deviceShifu's answer. */
function proxyStatus(reply: HttpReply): string | undefined {
  if (reply.status < 400 || !reply.contentType.includes('application/json')) return undefined;
  try {
    const status = JSON.parse(reply.body) as { kind?: string; message?: string };
    return status.kind === 'Status' ? status.message ?? `HTTP ${String(reply.status)}` : undefined;
  } catch {
    return undefined;
  }
}

async function callThroughApiServer(ctx: CliContext, device: string, request: DeviceRequest, timeoutMs: number): Promise<HttpReply> {
  const namespace = stringOption(ctx.invocation, 'deviceshifu-namespace') ?? 'deviceshifu';
  const path = `${paths.serviceProxy(namespace, device, 80)}${request.path}`;
  const reply = await ctx.cluster().raw(request.method, path, `call ${device} through the API server`, { body: request.body, contentType: request.contentType, timeoutMs });
  const status = proxyStatus(reply);
  if (status === undefined) return reply;
  const hint = reply.status === 404 ? `is there an EdgeDevice named ${device} (edgeshifu device list)?` : `its deviceShifu is not serving yet: edgeshifu status shows its phase and conditions`;
  throw new EdgeshifuError('unavailable', `cannot reach the deviceShifu Service ${namespace}/${device} through the API server: ${status}; ${hint}`);
}

function timeoutOf(invocation: Invocation): number {
  return numberOption(invocation, 'timeout', 30, 1) * 1000;
}

export async function run(ctx: CliContext): Promise<number> {
  const { invocation } = ctx;
  const [device = '', instruction = ''] = invocation.positionals;
  const request = deviceRequest(instruction, listOption(invocation, 'param'), {
    method: stringOption(invocation, 'method'), data: await readData(stringOption(invocation, 'data')), contentType: stringOption(invocation, 'content-type'),
  });
  const timeoutMs = timeoutOf(invocation);
  const local = ctx.localDeviceShifus();
  const reply = local === undefined
    ? await callThroughApiServer(ctx, device, request, timeoutMs)
    : await callLocal(pickLocal(local, device, stringOption(invocation, 'namespace')), request, timeoutMs);
  const ok = reply.status >= 200 && reply.status < 300;
  if (invocation.output === 'json') {
    ctx.print(JSON.stringify({ status: reply.status, contentType: reply.contentType, body: reply.body }, null, 2));
  } else if (ok) {
    ctx.terminal.out(reply.body);
  } else {
    ctx.note(`edgeshifu: the deviceShifu of ${device} answered ${request.method} ${request.path} with HTTP ${String(reply.status)}: ${reply.body.trim()}`);
  }
  return ok ? 0 : 1;
}
