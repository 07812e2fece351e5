// Runtime validation against the same JSON schemas the CRDs and messages are written in, with
// errors that name the field and say what is wrong (ajv; Kubernetes' x-kubernetes-* keywords are
// allowed and left to the API server, and so are CEL rules).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { EdgeshifuError } from './errors.ts';

// ajv-formats is CommonJS: under ESM its function arrives as the namespace's default.
const addFormats = ajvFormats.default as unknown as (ajv: Ajv) => Ajv;

const KUBERNETES_KEYWORDS = ['x-kubernetes-int-or-string', 'x-kubernetes-validations', 'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-map-type'];

// One ajv for the process and one compiled function per schema object: every Ajv instance
// compiles JSON Schema's meta-schema on its first compile, and each Validator had its own (about
// 1 MB of deviceShifu's RSS at start). The schemas are ours, written in TypeBox and
// tested, so they are not checked against the meta-schema either.
let compiler: Ajv | undefined;
const compiled = new WeakMap<TSchema, ValidateFunction>();

function makeAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false, validateSchema: false });
  addFormats(ajv);
  for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword(keyword);
  return ajv;
}

function compile(schema: TSchema): ValidateFunction {
  let check = compiled.get(schema);
  if (check === undefined) {
    compiler ??= makeAjv();
    const plain = JSON.parse(JSON.stringify(schema)) as object;
    check = compiler.compile(plain);
    // ajv's own cache would keep every schema ever compiled; ours goes with the schema object
    compiler.removeSchema(plain);
    compiled.set(schema, check);
  }
  return check;
}

export interface FieldError {
  /** Dotted path from the root, e.g. "spec.protocolSettings.SocketSetting.encoding". */
  readonly field: string;
  readonly message: string;
}

function describe(error: ErrorObject, root: string): FieldError {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') segments.push((error.params as { missingProperty: string }).missingProperty);
  if (error.keyword === 'additionalProperties') segments.push((error.params as { additionalProperty: string }).additionalProperty);
  const field = [root, ...segments].filter((s) => s !== '').join('.');
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'enum') message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (error.keyword === 'additionalProperties') message = 'is not a known field';
  if (error.keyword === 'required') message = 'is required';
  return { field: field || '(root)', message };
}

export class Validator<S extends TSchema> {
  private readonly check: ValidateFunction;
  private readonly root: string;

  /** `root` prefixes every field path in errors, e.g. "spec" or the name of a config file. */
  constructor(schema: S, root = '') {
    this.check = compile(schema);
    this.root = root;
  }

  errors(value: unknown): FieldError[] {
    if (this.check(value)) return [];
    return (this.check.errors ?? []).map((e) => describe(e, this.root));
  }

  is(value: unknown): value is Static<S> {
    return this.check(value);
  }

  /** The value, typed, or an 'invalid' EdgeshifuError listing every problem. */
  parse(value: unknown, what: string): Static<S> {
    const errors = this.errors(value);
    if (errors.length === 0) return value;
    throw new EdgeshifuError('invalid', `${what} is invalid: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  }
}
