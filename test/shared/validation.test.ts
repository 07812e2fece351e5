import test from 'ava';
import fc from 'fast-check';
import { Type } from '@sinclair/typebox';
import { Validator } from '../../shared/validation.ts';
import { CompiledValidator } from '../../shared/compiled-validator.ts';
import { StringEnum } from '../../shared/crds/schema.ts';

const Thing = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 8, pattern: '^[a-z]+$' }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
  ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  mode: Type.Optional(StringEnum(['fast', 'slow'])),
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2, uniqueItems: true })),
  inner: Type.Optional(Type.Object({ on: Type.Boolean() }, { additionalProperties: false })),
  either: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
}, { additionalProperties: false });

const messages = (value: unknown): string[] => new Validator(Thing, 'thing').errors(value).map((e) => `${e.field} ${e.message}`);

test('each failed keyword is one error naming the field, in the words the rest of edgeshifu uses', (t) => {
  t.deepEqual(messages({ name: 'ok' }), []);
  t.deepEqual(messages({}), ['thing.name is required']);
  t.deepEqual(messages({ name: 5 }), ['thing.name must be string']);
  t.deepEqual(messages({ name: '' }), ['thing.name must NOT have fewer than 1 characters', 'thing.name must match pattern "^[a-z]+$"']);
  t.deepEqual(messages({ name: 'abcdefghi' }), ['thing.name must NOT have more than 8 characters']);
  t.deepEqual(messages({ name: 'a', count: 0 }), ['thing.count must be >= 1']);
  t.deepEqual(messages({ name: 'a', count: 11 }), ['thing.count must be <= 10']);
  t.deepEqual(messages({ name: 'a', count: 1.5 }), ['thing.count must be integer']);
  t.deepEqual(messages({ name: 'a', ratio: 0 }), ['thing.ratio must be > 0']);
  t.deepEqual(messages({ name: 'a', mode: 'medium' }), ['thing.mode must be one of "fast", "slow"']);
  t.deepEqual(messages({ name: 'a', tags: ['x', 'x'] }), ['thing.tags must NOT have duplicate items']);
  t.deepEqual(messages({ name: 'a', tags: ['x', 'y', 'z'] }), ['thing.tags must NOT have more than 2 items']);
  t.deepEqual(messages({ name: 'a', extra: 1 }), ['thing.extra is not a known field']);
  t.deepEqual(messages({ name: 'a', inner: { on: 'yes', off: true } }), ['thing.inner.on must be boolean', 'thing.inner.off is not a known field']);
  t.deepEqual(messages({ name: 'a', either: true }), ['thing.either must match a schema in anyOf', 'thing.either must be string', 'thing.either must be integer']);
  t.deepEqual(messages('text'), ['thing must be object']);
});

test('a value that is not JSON data is refused, not thrown on', (t) => {
  const validator = new Validator(Thing, 'thing');
  t.deepEqual(validator.errors(undefined), [{ field: 'thing', message: 'is required' }]);
  t.deepEqual(validator.errors(() => 1), [{ field: 'thing', message: 'must be JSON data' }]);
  t.false(validator.is(undefined));
  t.throws(() => validator.parse({}, 'the thing'), { message: 'the thing is invalid: thing.name is required' });
});

test('the compiled check accepts and refuses exactly what the interpreter does, with the same errors', (t) => {
  const interpreted = new Validator(Thing, 'thing');
  const compiled = new CompiledValidator(Thing, 'thing');
  const candidate = fc.record({
    name: fc.oneof(fc.string({ maxLength: 10 }), fc.integer()),
    count: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.double({ noNaN: true })),
    ratio: fc.double({ min: -1, max: 1, noNaN: true }),
    mode: fc.constantFrom('fast', 'slow', 'medium', 3),
    tags: fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 3 }),
    inner: fc.record({ on: fc.oneof(fc.boolean(), fc.string()) }),
    either: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.double({ noNaN: true })),
  }, { requiredKeys: [] });
  fc.assert(fc.property(candidate, (value) => {
    t.is(compiled.is(value), interpreted.is(value), JSON.stringify(value));
    t.deepEqual(compiled.errors(value), interpreted.errors(value));
  }), { numRuns: 500 });
});
