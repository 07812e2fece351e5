// REAR's data as it crosses the bus (TypeBox): resources in REAR's units (core/model.ts), a
// flavour, a selector, and the hop path a request took through the supernodes.
import { Type } from '@sinclair/typebox';
import { ClusterId } from '../../../shared/bus/envelope.ts';

const Amount = Type.Number({ minimum: 0 });
export const WireResources = Type.Object({ cpu: Amount, memory: Amount, pods: Amount, storage: Amount, gpu: Amount }, { additionalProperties: false });
const Label = Type.String({ minLength: 1, maxLength: 63 });
export const RequestId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' });
export const FlavourId = Type.String({ minLength: 1, maxLength: 253 });

export const WirePrice = Type.Object({
  amount: Amount,
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  period: Type.Union([Type.Literal('hourly'), Type.Literal('daily'), Type.Literal('monthly')]),
}, { additionalProperties: false });

export const WireOwner = Type.Object({ cluster: ClusterId, domain: Type.String({ minLength: 1, maxLength: 253 }), address: Type.String({ maxLength: 300 }) }, { additionalProperties: false });

export const WirePolicy = Type.Union([
  Type.Object({ kind: Type.Literal('partitionable'), min: WireResources, step: WireResources }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('aggregatable'), unit: WireResources, minCount: Type.Integer({ minimum: 1 }), maxCount: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
]);

export const WireFlavour = Type.Object({
  id: FlavourId,
  type: Label,
  architecture: Label,
  characteristics: WireResources,
  policy: WirePolicy,
  units: Type.Optional(Type.Integer({ minimum: 0 })),
  owner: WireOwner,
  price: WirePrice,
  available: Type.Boolean(),
}, { additionalProperties: false });

const Bound = Type.Object({ min: Type.Optional(Amount), max: Type.Optional(Amount) }, { additionalProperties: false });
export const WireSelector = Type.Object({
  type: Type.Optional(Label),
  architecture: Type.Optional(Label),
  bounds: Type.Optional(Type.Object({ cpu: Type.Optional(Bound), memory: Type.Optional(Bound), pods: Type.Optional(Bound), storage: Type.Optional(Bound), gpu: Type.Optional(Bound) }, { additionalProperties: false })),
}, { additionalProperties: false });

/** The clusters a request went through, first the one that asked: answers go back along it, and no supernode is asked twice. */
export const Path = Type.Array(ClusterId, { minItems: 1, maxItems: 16 });

export const Refusal = Type.Object({
  kind: Type.Union([Type.Literal('invalid'), Type.Literal('not-found'), Type.Literal('conflict'), Type.Literal('forbidden'), Type.Literal('unavailable')]),
  message: Type.String({ maxLength: 1024 }),
}, { additionalProperties: false });
