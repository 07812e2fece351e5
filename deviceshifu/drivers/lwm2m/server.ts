// The LwM2M server one deviceShifu runs for its one device: the CoAP endpoint, the registry, the
// observations, and the session with the registered client. Calls get the session, or a
// DeviceAbsentError (503) saying the client has not registered, under which endpoint name, and
// which other endpoint tried, if one did. A session ends with its registration, failing the
// calls still in flight at once.
import type { Lwm2mRegistration } from '../../../shared/crds/lwm2m-status.ts';
import { Backoff, sleep } from '../../../shared/backoff.ts';
import type { Logger } from '../../../shared/log.ts';
import { isoTime } from '../../../shared/time.ts';
import type { StatusReporter } from '../driver.ts';
import { DeviceAbsentError } from '../device-errors.ts';
import { Lwm2mEndpoint } from './endpoint.ts';
import { Liveness } from './liveness.ts';
import type { Session } from './exchange.ts';
import { Observations } from './observe.ts';
import { Registry, type Registration, type RegistrationEvent } from './registry.ts';
import type { Lwm2mPlan } from './settings.ts';

function endedWhy(event: RegistrationEvent, registration: Registration): string {
  if (event === 'expired') return `let its registration expire (lifetime ${registration.lifetimeSec} s without an Update)`;
  return event === 'replaced' ? 'registered again' : 'deregistered';
}

/** The registration as the EdgeDevice's status.lwm2m records it (what shifud lists for the node). */
export function registrationStatus(r: Registration): Lwm2mRegistration {
  return { endpointName: r.endpointName, address: `${r.address}:${r.port}`, lifetimeSec: Math.round(r.lifetimeSec), lwm2mVersion: r.lwm2mVersion, registeredAt: isoTime(r.registeredAt), objects: [...r.objects] };
}

export class Lwm2mServer {
  readonly registry = new Registry();
  readonly observations: Observations;
  readonly liveness: Liveness;
  private endpoint: Lwm2mEndpoint | undefined;
  private live: (Session & { readonly end: AbortController }) | undefined;
  private readonly plan: Lwm2mPlan;
  private readonly logger: Logger;
  private readonly report: StatusReporter | undefined;
  /** What status.lwm2m holds now, as JSON: an Update that changes nothing writes nothing. */
  private reported = 'null';
  private readonly stopping = new AbortController();

  constructor(plan: Lwm2mPlan, logger: Logger, report?: StatusReporter) {
    this.plan = plan;
    this.logger = logger;
    this.report = report;
    this.observations = new Observations(logger, plan.observeIntervalSec * 1000);
    this.liveness = new Liveness(plan.pingIntervalSec, logger);
    this.liveness.start(() => this.live);
    this.registry.onChange((event, registration) => { this.changed(event, registration); });
  }

  /**
   * Binds the UDP port. The driver must not throw at start: a port taken is logged, calls say so
   * (503), and the bind is tried again with backoff until it succeeds or the server stops.
   */
  async start(bindAddress: string, port: number): Promise<void> {
    if (!(await this.bind(bindAddress, port))) void this.rebind(bindAddress, port);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.liveness.stop();
    this.record(undefined);
    this.observations.stop();
    this.live?.end.abort(new DeviceAbsentError('deviceShifu is stopping'));
    this.live = undefined;
    this.registry.stop();
    await this.endpoint?.close();
    this.endpoint = undefined;
  }

  private async bind(bindAddress: string, port: number): Promise<boolean> {
    try {
      const endpoint = await Lwm2mEndpoint.open({
        bindAddress, port, expectedEndpoint: this.plan.endpointName, defaultLifetimeSec: this.plan.defaultLifetimeSec, registry: this.registry, logger: this.logger,
      });
      if (this.stopping.signal.aborted) {
        await endpoint.close();
        return true;
      }
      this.endpoint = endpoint;
      this.logger.info({ port: endpoint.port }, 'LwM2M server listening (CoAP over UDP)');
      return true;
    } catch (err) {
      this.logger.error({ port, err: (err as Error).message }, 'LwM2M server could not bind its UDP port; calls answer 503 until it can (trying again)');
      return false;
    }
  }

  private async rebind(bindAddress: string, port: number): Promise<void> {
    const backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      await sleep(backoff.next(), signal);
      // a bind that lands after stop closes at once (bind)
      if (await this.bind(bindAddress, port)) return;
    }
  }

  get registered(): boolean {
    return this.live !== undefined;
  }

  /** The session with the registered client, or the 503 that says why there is none. */
  session(): Session {
    if (this.live === undefined) throw this.absent();
    return this.live;
  }

  absent(): DeviceAbsentError {
    const refused = this.registry.lastRefused;
    const hint = refused === undefined ? '' : `; endpoint "${refused.endpointName}" from ${refused.from} tried and was refused: set LwM2MSetting.endpointName to it if that is this device`;
    const port = this.endpoint === undefined ? 'not listening: its UDP port could not be bound' : `listening on UDP port ${this.endpoint.port}`;
    return new DeviceAbsentError(`LwM2M client with endpoint name "${this.plan.endpointName}" has not registered with deviceShifu (${port})${hint}`);
  }

  private record(registration: Registration | undefined): void {
    const status = registration === undefined ? null : registrationStatus(registration);
    const json = JSON.stringify(status);
    if (json === this.reported) return;
    this.reported = json;
    this.report?.({ lwm2m: status });
  }

  private changed(event: RegistrationEvent, registration: Registration): void {
    this.record(this.registry.registration);
    if (event === 'updated' || event === 'registered') this.liveness.heard();
    if (event === 'updated') {
      this.observations.alive();
      return;
    }
    this.live?.end.abort(new DeviceAbsentError(`LwM2M client "${registration.endpointName}" ${endedWhy(event, registration)} during the call`));
    this.live = undefined;
    if (event === 'registered' && this.endpoint !== undefined) {
      const end = new AbortController();
      const registry = this.registry;
      // an Update may move the client (NAT rebinding): requests go to where it last spoke from
      this.live = { agent: this.endpoint.agent, gone: end.signal, end, get registration(): Registration { return registry.registration ?? registration; } };
      this.observations.started(this.live);
      this.logger.info({ from: `${registration.address}:${registration.port}`, lifetimeSec: registration.lifetimeSec, objects: registration.objects.length }, 'LwM2M client registered');
    } else if (event !== 'replaced') {
      this.observations.ended(this.absent());
      this.logger.info({ event }, 'LwM2M registration ended');
    }
  }
}
