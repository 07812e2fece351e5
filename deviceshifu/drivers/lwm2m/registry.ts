// The registrations this deviceShifu's LwM2M server holds (LwM2M TS 1.0 §5.3): the one endpoint it
// serves, where it is (address and port of its last Register or Update), what objects it has, and
// when its lifetime runs out. A registration not renewed by an Update within its lifetime is
// removed, as the spec requires; the device must Register again. Listeners hear every change.
import { randomBytes } from 'node:crypto';

export interface Registration {
  /** The location the server gave it: /rd/<id>. */
  readonly id: string;
  readonly endpointName: string;
  readonly address: string;
  readonly port: number;
  readonly lifetimeSec: number;
  readonly lwm2mVersion: string;
  readonly binding: string;
  /** Object instances it announced, as link paths: /3303/0. */
  readonly objects: readonly string[];
  readonly registeredAt: number;
  readonly updatedAt: number;
}

export type RegistrationEvent = 'registered' | 'updated' | 'deregistered' | 'expired' | 'replaced';
export type RegistrationListener = (event: RegistrationEvent, registration: Registration) => void;

export interface RefusedEndpoint {
  readonly endpointName: string;
  readonly from: string;
  readonly at: number;
}

export class Registry {
  private current: Registration | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<RegistrationListener>();
  /** The last endpoint that tried to register under another name: the 503 message names it. */
  lastRefused: RefusedEndpoint | undefined;
  readonly stats = { registers: 0, updates: 0, deregisters: 0, expiries: 0 };

  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  get registration(): Registration | undefined {
    return this.current;
  }

  find(id: string): Registration | undefined {
    return this.current?.id === id ? this.current : undefined;
  }

  onChange(listener: RegistrationListener): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  register(fields: Omit<Registration, 'id' | 'registeredAt' | 'updatedAt'>): Registration {
    const old = this.current;
    const at = this.now();
    const registration: Registration = { ...fields, id: randomBytes(6).toString('hex'), registeredAt: at, updatedAt: at };
    this.current = registration;
    this.stats.registers += 1;
    this.arm(registration);
    // a second Register replaces the first (the device rebooted): its observations are gone with it
    if (old !== undefined) this.emit('replaced', old);
    this.emit('registered', registration);
    return registration;
  }

  update(id: string, change: Partial<Pick<Registration, 'address' | 'port' | 'lifetimeSec' | 'binding' | 'objects'>>): Registration | undefined {
    const found = this.find(id);
    if (found === undefined) return undefined;
    const registration: Registration = { ...found, ...change, updatedAt: this.now() };
    this.current = registration;
    this.stats.updates += 1;
    this.arm(registration);
    this.emit('updated', registration);
    return registration;
  }

  deregister(id: string): Registration | undefined {
    const found = this.find(id);
    if (found === undefined) return undefined;
    this.stats.deregisters += 1;
    this.drop(found, 'deregistered');
    return found;
  }

  stop(): void {
    clearTimeout(this.expiry);
    this.current = undefined;
    this.listeners.clear();
  }

  private arm(registration: Registration): void {
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => {
      if (this.current !== registration) return;
      this.stats.expiries += 1;
      this.drop(registration, 'expired');
    }, registration.lifetimeSec * 1000);
    this.expiry.unref();
  }

  private drop(registration: Registration, event: RegistrationEvent): void {
    clearTimeout(this.expiry);
    this.current = undefined;
    this.emit(event, registration);
  }

  private emit(event: RegistrationEvent, registration: Registration): void {
    for (const listener of this.listeners) listener(event, registration);
  }
}
