// Runtime validation against the same JSON schemas the CRDs and messages are written in, with
// errors that name the field and say what is wrong. Kubernetes' x-kubernetes-* keywords and CEL
// rules are left to the API server: the validator ignores keywords it does not know.
//
// @cfworker/json-schema interprets a schema instead of generating code for it. ajv, which generated
// code, cost every process about 3 MiB of anonymous memory for its own code and the validators it
// compiled (deviceshifu/README.md, "Validation"), and deviceShifu checks only a few small files, on
// start and on a ConfigMap change.
import { Validator as SchemaValidator, type OutputUnit } from '@cfworker/json-schema';
import type { Static, TSchema } from '@sinclair/typebox';
import { EdgeshifuError } from './errors.ts';

export interface FieldError {
  /** Dotted path from the root, e.g. "spec.protocolSettings.SocketSetting.encoding". */
  readonly field: string;
  readonly message: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// One interpreter per schema object, made on the schema's first check.
const prepared = new WeakMap<TSchema, { readonly validator: SchemaValidator; readonly plain: Json }>();

function prepare(schema: TSchema): { readonly validator: SchemaValidator; readonly plain: Json } {
  let entry = prepared.get(schema);
  if (entry === undefined) {
    // TypeBox's symbols and Type.Unsafe wrappers go; what is left is plain JSON Schema (draft 7,
    // whose array-form `items` TypeBox's tuples use)
    const plain = JSON.parse(JSON.stringify(schema)) as Json;
    entry = { validator: new SchemaValidator(plain as object, '7', false), plain };
    prepared.set(schema, entry);
  }
  return entry;
}

// The interpreter takes JSON data only (it throws on undefined, functions and bigints); nested
// values come from JSON.parse or YAML, so the top-level value is the one to check.
const isJson = (value: unknown): boolean => value === null || ['object', 'string', 'number', 'boolean'].includes(typeof value);

/** JSON Pointer segments of a '#/a/b' location, unescaped. */
function segments(location: string): string[] {
  return location.split('/').slice(1).map((s) => decodeURIComponent(s).replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The schema value a keyword location points at. */
function at(schema: Json, location: string): Json | undefined {
  let node: Json | undefined = schema;
  for (const segment of segments(location)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? node[Number(segment)] : node[segment];
  }
  return node;
}

// Units that only say "a part below failed": the part's own errors follow them.
const SUMMARIES = new Set(['properties', 'patternProperties', 'items', 'prefixItems', 'additionalItems', 'allOf', 'dependentSchemas', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', '$ref']);

const quoted = (v: Json | undefined): string => JSON.stringify(v);
const text = (v: Json | undefined): string => typeof v === 'string' || typeof v === 'number' ? String(v) : quoted(v);
const MESSAGES: Readonly<Record<string, (v: Json | undefined) => string>> = {
  type: (v) => `must be ${Array.isArray(v) ? v.map(text).join(',') : text(v)}`,
  enum: (v) => `must be one of ${Array.isArray(v) ? v.map(quoted).join(', ') : quoted(v)}`,
  const: (v) => `must be ${quoted(v)}`,
  minimum: (v) => `must be >= ${text(v)}`,
  maximum: (v) => `must be <= ${text(v)}`,
  exclusiveMinimum: (v) => `must be > ${text(v)}`,
  exclusiveMaximum: (v) => `must be < ${text(v)}`,
  multipleOf: (v) => `must be a multiple of ${text(v)}`,
  minLength: (v) => `must NOT have fewer than ${text(v)} characters`,
  maxLength: (v) => `must NOT have more than ${text(v)} characters`,
  pattern: (v) => `must match pattern ${quoted(v)}`,
  format: (v) => `must match format ${quoted(v)}`,
  minItems: (v) => `must NOT have fewer than ${text(v)} items`,
  maxItems: (v) => `must NOT have more than ${text(v)} items`,
  uniqueItems: () => 'must NOT have duplicate items',
  minProperties: (v) => `must NOT have fewer than ${text(v)} properties`,
  maxProperties: (v) => `must NOT have more than ${text(v)} properties`,
  anyOf: () => 'must match a schema in anyOf',
  oneOf: () => 'must match exactly one schema in oneOf',
  not: () => 'must NOT be valid',
  contains: () => 'must contain a valid item',
};

/** Our errors from the validator's output: one per failed leaf keyword. */
function describe(units: readonly OutputUnit[], schema: Json, root: string): FieldError[] {
  const errors: FieldError[] = [];
  const path = (instanceLocation: string, ...more: string[]): string => [root, ...segments(instanceLocation), ...more].filter((s) => s !== '').join('.') || '(root)';
  let previous: OutputUnit | undefined;
  for (const unit of units) {
    const keyword = unit.keyword;
    const parent = previous;
    previous = unit;
    if (keyword === 'additionalProperties') {
      // a field the schema does not allow: the unit names the field (its 'false' unit follows)
      if (at(schema, unit.keywordLocation) !== false) continue;
      const name = /^Property "(.*)" does not match/.exec(unit.error)?.[1] ?? '';
      errors.push({ field: path(unit.instanceLocation, name), message: 'is not a known field' });
    } else if (keyword === 'required') {
      const name = /required property "(.*)"\.$/.exec(unit.error)?.[1] ?? '';
      errors.push({ field: path(unit.instanceLocation, name), message: 'is required' });
    } else if (keyword === 'false') {
      // right after its additionalProperties unit, this is the unknown field already named
      if (parent?.keyword === 'additionalProperties') continue;
      errors.push({ field: path(unit.instanceLocation), message: 'is not allowed' });
    } else if (!SUMMARIES.has(keyword)) {
      const message = MESSAGES[keyword]?.(at(schema, unit.keywordLocation)) ?? 'is invalid';
      errors.push({ field: path(unit.instanceLocation), message });
    }
  }
  return errors;
}

export class Validator<S extends TSchema> {
  private readonly schema: S;
  private readonly root: string;
  /** The root as a field path, for an error about the whole value. */
  protected get rootField(): string { return this.root || '(root)'; }

  /** `root` prefixes every field path in errors, e.g. "spec" or the name of a config file. */
  constructor(schema: S, root = '') {
    this.schema = schema;
    this.root = root;
  }

  errors(value: unknown): FieldError[] {
    const { validator, plain } = prepare(this.schema);
    if (!isJson(value)) return [{ field: this.rootField, message: value === undefined ? 'is required' : 'must be JSON data' }];
    const result = validator.validate(value);
    return result.valid ? [] : describe(result.errors, plain, this.root);
  }

  is(value: unknown): value is Static<S> {
    return isJson(value) && prepare(this.schema).validator.validate(value).valid;
  }

  /** The value, typed, or an 'invalid' EdgeshifuError listing every problem. */
  parse(value: unknown, what: string): Static<S> {
    const errors = this.errors(value);
    if (errors.length === 0) return value;
    throw new EdgeshifuError('invalid', `${what} is invalid: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  }
}
