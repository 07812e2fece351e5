// Where an LwM2M client's registration is recorded: its deviceShifu writes it to the EdgeDevice's
// status (status.lwm2m, removed when the registration ends), and shifud lists those of the
// deviceShifus on its node in the EdgeNode's status (status.lwm2mEndpoints).
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './schema.ts';

export const Lwm2mRegistration = Type.Object({
  endpointName: Type.String({ maxLength: 253 }),
  address: Type.String({ maxLength: 300, description: 'host:port the client registered (or last updated) from.' }),
  lifetimeSec: Type.Integer({ minimum: 1, description: 'Registration lifetime: the client must Update within it.' }),
  lwm2mVersion: Type.String({ maxLength: 16 }),
  registeredAt: Timestamp(),
  objects: Type.Array(Type.String({ maxLength: 16 }), { maxItems: 1024, description: 'Object instances the client announced, e.g. /3303/0.' }),
}, { description: 'The LwM2M client registered with this device\'s deviceShifu (absent while none is).' });
export type Lwm2mRegistration = Static<typeof Lwm2mRegistration>;

export const Lwm2mEndpointSeen = Type.Object({
  name: Type.String({ description: 'The EdgeDevice.' }),
  namespace: Type.String(),
  endpointName: Type.String(),
  address: Type.String(),
  registeredAt: Timestamp(),
  objects: Type.Array(Type.String({ maxLength: 16 }), { maxItems: 1024 }),
});
export type Lwm2mEndpointSeen = Static<typeof Lwm2mEndpointSeen>;
