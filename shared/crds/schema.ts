// Building blocks for CRD schemas written once in TypeBox: the same object gives the TypeScript
// type (Static<>), the runtime validator and, through crd.ts, the OpenAPI schema in manifests/crds.
// Only constructs a Kubernetes structural schema accepts are used here (no const, anyOf of
// literals or patternProperties): enums and maps are spelled the Kubernetes way.
import { Type, type Static, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

/** A string enum as Kubernetes wants it (`enum: [...]`), typed as the union of its values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** map[string]string */
export function StringMap(options: SchemaOptions = {}): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({ ...options, type: 'object', additionalProperties: { type: 'string' } });
}

/** A Kubernetes resource quantity ("250m", "1.5Gi", 4): int-or-string, as in core types. */
export function Quantity(options: SchemaOptions = {}): TUnsafe<string | number> {
  return Type.Unsafe<string | number>({
    ...options,
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  });
}

/** An RFC 3339 timestamp, as metav1.Time serialises. */
export function Timestamp(options: SchemaOptions = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ ...options, type: 'string', format: 'date-time' });
}

/** A CEL rule on an object (x-kubernetes-validations). */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
  readonly fieldPath?: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export function celRules(...rules: CelRule[]): { 'x-kubernetes-validations': CelRule[] } {
  return { 'x-kubernetes-validations': rules };
}

/** metav1.Condition, with the API's own validation. */
export const Condition = Type.Object({
  type: Type.String({ maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' }),
  status: StringEnum(['True', 'False', 'Unknown']),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  lastTransitionTime: Timestamp(),
  reason: Type.String({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
  message: Type.String({ maxLength: 32768 }),
});

export const Conditions = Type.Array(Condition, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], maxItems: 32 });
export type Condition = Static<typeof Condition>;

/** Where a device or node is: a site zone and/or geographic coordinates. */
export const Location = Type.Object({
  zone: Type.Optional(Type.String({ maxLength: 253, description: 'Site, building or line the vertex belongs to; vertices in the same zone are close.' })),
  latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
}, {
  description: 'Where it is. Used by the controller to place deviceShifu on the closest EdgeNode.',
  ...celRules({ rule: 'has(self.latitude) == has(self.longitude)', message: 'latitude and longitude must be given together' }),
});

/** How two edge vertices are linked (edgeLink). Shifu defines only Ethernet. */
export const LINK_TYPES = ['Ethernet', 'USB', 'Serial', 'Wireless'] as const;
export const LinkType = StringEnum(LINK_TYPES);
