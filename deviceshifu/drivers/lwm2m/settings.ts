// Shifu's LwM2MSetting → what the LwM2M server side of deviceShifu needs (pure). DTLS is refused
// here as at admission (the CRD's CEL rule): no maintained Node.js library serves DTLS with PSK
// (README.md), and a device told to use DTLS would never reach a plain CoAP port.
import { EdgeshifuError } from '../../../shared/errors.ts';
import type { EdgeDeviceSpec } from '../../../shared/crds/edgedevice.ts';

/** The IANA CoAP port (RFC 7252 §6.1); coaps (DTLS) would be 5684. */
export const COAP_PORT = 5683;

export interface Lwm2mPlan {
  /** The endpoint name the device registers with (its `ep`); any other is refused. */
  readonly endpointName: string;
  /** Longest registration lifetime granted when the device asks for none (LwM2M default 86400 s; Shifu's lifeTimeSec default 247). */
  readonly defaultLifetimeSec: number;
  /** > 0: a registered client not heard from within this many seconds is checked, and marked unreachable if it does not answer (liveness.ts); otherwise the registration alone shows it alive. */
  readonly pingIntervalSec: number;
  /** > 0: an observation that has brought no notification for this many seconds is made again (observe.ts); Shifu's default 30. */
  readonly observeIntervalSec: number;
}

export const DTLS_REFUSAL = 'LwM2MSetting.securityMode DTLS is not supported: no maintained Node.js library serves DTLS with PSK (node-coap has none); use securityMode None on a trusted network';

/** Shifu's interval settings, with its CRD's defaults (-1: no liveness checks; 30 s). */
function intervals(s: { readonly pingIntervalSec?: number; readonly observeIntervalSec?: number }): Pick<Lwm2mPlan, 'pingIntervalSec' | 'observeIntervalSec'> {
  return { pingIntervalSec: s.pingIntervalSec ?? -1, observeIntervalSec: s.observeIntervalSec ?? 30 };
}

export function lwm2mPlan(spec: EdgeDeviceSpec): Lwm2mPlan {
  const s = spec.protocolSettings?.LwM2MSetting;
  if (s === undefined) throw new EdgeshifuError('invalid', 'an LwM2M device needs spec.protocolSettings.LwM2MSetting (at least endpointName)');
  const endpointName = s.endpointName.trim();
  if (endpointName === '') throw new EdgeshifuError('invalid', 'LwM2MSetting.endpointName is empty: set the endpoint name the device registers with');
  if ((s.securityMode ?? 'None') !== 'None') throw new EdgeshifuError('invalid', DTLS_REFUSAL);
  if (s.dtlsMode !== undefined || s.pskIdentity !== undefined || s.pskKey !== undefined || (s.cipherSuites?.length ?? 0) > 0) {
    throw new EdgeshifuError('invalid', 'LwM2MSetting: dtlsMode, cipherSuites, pskIdentity and pskKey describe DTLS, which is not supported: remove them (securityMode None)');
  }
  const lifetime = s.lifeTimeSec ?? 247;
  return { endpointName, defaultLifetimeSec: lifetime > 0 ? lifetime : 247, ...intervals(s) };
}
