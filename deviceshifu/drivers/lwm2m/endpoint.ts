// deviceShifu's LwM2M server endpoint: one UDP socket that node-coap's Server (the registration
// interface: Register, Update, De-register) and Agent (requests to the client: Read, Write,
// Execute, Observe) share. Requests leave from the port the client registered with, as a client
// behind NAT or checking its server's address needs (node-coap's server ignores responses on a
// shared socket, and its agent ignores requests).
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { Agent, Server, type IncomingMessage, type OutgoingMessage } from 'coap';
import type { Logger } from '../../../shared/log.ts';
import { DEREGISTER_STEPS } from './deregister.ts';
import { runFlow, type FlowResult, type Step } from './flow.ts';
import { REGISTER_STEPS, type RegisterContext } from './register.ts';
import type { Registry } from './registry.ts';
import { UPDATE_STEPS } from './update.ts';

export interface EndpointOptions {
  readonly bindAddress: string;
  readonly port: number;
  readonly expectedEndpoint: string;
  readonly defaultLifetimeSec: number;
  readonly registry: Registry;
  readonly logger: Logger;
}

/** One registration-interface message: its flow, and the success code (after any options it sets). */
interface Flow<C> {
  readonly message: string;
  readonly steps: readonly Step<C>[];
  readonly context: C;
  readonly success: () => string;
}

/** Largest Register or Update payload taken (link format of up to MAX_LINKS objects). */
const MAX_PAYLOAD = 16 * 1024;

export class Lwm2mEndpoint {
  readonly agent: Agent;
  private readonly socket: Socket;
  private readonly server: Server;
  private readonly options: EndpointOptions;

  private constructor(options: EndpointOptions, socket: Socket) {
    this.options = options;
    this.socket = socket;
    this.server = new Server({ type: isIPv6(options.bindAddress) ? 'udp6' : 'udp4' }, (req, res) => { this.handle(req, res); });
    this.server.on('error', (err: Error) => { options.logger.warn({ err: err.message }, 'LwM2M endpoint: CoAP server error'); });
    this.server.listen(socket);
    this.agent = new Agent({ socket });
    this.agent.on('error', (err: Error) => { options.logger.warn({ err: err.message }, 'LwM2M endpoint: CoAP agent error'); });
  }

  static async open(options: EndpointOptions): Promise<Lwm2mEndpoint> {
    const socket = createSocket({ type: isIPv6(options.bindAddress) ? 'udp6' : 'udp4' });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(options.port, options.bindAddress, () => { socket.off('error', reject); resolve(); });
    });
    return new Lwm2mEndpoint(options, socket);
  }

  get port(): number {
    return this.socket.address().port;
  }

  async close(): Promise<void> {
    // an agent on a socket it was given never calls back from close(): it only drops its requests
    this.agent.close();
    this.server.close();
    await new Promise<void>((resolve) => { this.socket.close(() => { resolve(); }); });
  }

  private handle(req: IncomingMessage, res: OutgoingMessage): void {
    const [path = '', queryText = ''] = req.url.split('?');
    const segments = path.split('/').filter((s) => s !== '');
    const query = new URLSearchParams(queryText);
    const source = { address: req.rsinfo.address, port: req.rsinfo.port };
    const { registry } = this.options;
    if (req.payload.length > MAX_PAYLOAD) {
      this.reply(res, '4.13', `payload over ${MAX_PAYLOAD} bytes`);
      return;
    }
    if (segments[0] !== 'rd' || segments.length > 2) {
      this.reply(res, '4.04', `${path} is not part of the registration interface (/rd)`);
      return;
    }
    const id = segments[1];
    if (req.method === 'POST' && id === undefined) {
      const context: RegisterContext = { query, payload: req.payload, source, expectedEndpoint: this.options.expectedEndpoint, defaultLifetimeSec: this.options.defaultLifetimeSec, registry };
      this.finish(res, source, { message: 'Register', steps: REGISTER_STEPS, context, success: () => {
        res.setOption('Location-Path', ['rd', context.registration?.id ?? ''].map((s) => Buffer.from(s)));
        return '2.01';
      } });
    } else if (req.method === 'POST' && id !== undefined) {
      this.finish(res, source, { message: 'Update', steps: UPDATE_STEPS, context: { id, query, payload: req.payload, source, registry }, success: () => '2.04' });
    } else if (req.method === 'DELETE' && id !== undefined) {
      this.finish(res, source, { message: 'De-register', steps: DEREGISTER_STEPS, context: { id, registry }, success: () => '2.02' });
    } else {
      this.reply(res, '4.05', `${req.method} ${path} is not a registration interface operation`);
    }
  }

  private finish<C>(res: OutgoingMessage, source: { address: string; port: number }, flow: Flow<C>): void {
    const { message, steps, context, success } = flow;
    let result: FlowResult;
    try {
      result = runFlow(steps, context);
    } catch (err) {
      this.options.logger.error({ message, err: (err as Error).message }, 'LwM2M endpoint: handling a message failed');
      this.reply(res, '5.00', 'internal error');
      return;
    }
    const from = `${source.address}:${source.port}`;
    if (result.ok) {
      this.reply(res, success(), '');
      this.options.logger.debug({ message, from }, 'LwM2M message accepted');
      return;
    }
    this.options.logger.warn({ message, from, step: result.step, code: result.refusal.code, reason: result.refusal.message }, 'LwM2M message refused');
    this.reply(res, result.refusal.code, result.refusal.message);
  }

  private reply(res: OutgoingMessage, code: string, diagnostic: string): void {
    res.code = code;
    res.end(diagnostic === '' ? undefined : Buffer.from(diagnostic, 'utf8'));
  }
}
