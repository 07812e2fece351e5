// A Validator for the hot paths (every bus message, every edgeMap vertex): a valid value is
// accepted by a check TypeBox compiles from the schema, several times faster than interpreting the
// schema (bench/validation.ts); only a value that fails goes through the interpreter, for the field
// errors. Components that check only files and resources never load TypeBox's compiler.
import type { TSchema, Static } from '@sinclair/typebox';
import { TypeRegistry } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Validator, type FieldError } from './validation.ts';

// Type.Unsafe parts (a raw JSON Schema, e.g. a string enum) are not TypeBox's to compile: the
// compiled check hands each to the interpreter.
const unsafeParts = new WeakMap<object, Validator<TSchema>>();
TypeRegistry.Set('Unsafe', (schema: TSchema, value: unknown) => {
  let part = unsafeParts.get(schema);
  if (part === undefined) unsafeParts.set(schema, part = new Validator(schema));
  return part.is(value);
});

export class CompiledValidator<S extends TSchema> extends Validator<S> {
  private readonly compiled: TypeCheck<S>;

  constructor(schema: S, root = '') {
    super(schema, root);
    this.compiled = TypeCompiler.Compile(schema);
  }

  override errors(value: unknown): FieldError[] {
    if (this.compiled.Check(value)) return [];
    const errors = super.errors(value);
    // The two read a schema alike; should they ever differ, the value is still refused.
    return errors.length > 0 ? errors : [{ field: this.rootField, message: 'does not match its schema' }];
  }

  override is(value: unknown): value is Static<S> {
    return this.compiled.Check(value);
  }
}
