// The yaml package, loaded for a moment. It is 115 KB of bundled JavaScript that deviceShifu runs at
// start and on a configuration change only; as an ES module of the bundle it would stay for the life
// of the process (an ES module is never unloaded): 0.5 MiB of anonymous memory idle over loading it
// and letting it go, measured (deviceshifu/README.md, "What deviceShifu adds over its floor"). In the
// bundle it is a CommonJS file of its own (dist/bundle/yaml.cjs, `npm run build:bundle`), compiled on
// use and dropped a second later for the collector to take back; from source (tsx, tests) it is
// required as usual.
import type * as YamlModule from 'yaml';

// not ESM imports: a builtin's namespace reads every lazy export (node:fs's loads fs/promises and
// what it brings, shared/files.ts)
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');
const { createRequire } = process.getBuiltinModule('node:module');
const { fileURLToPath } = process.getBuiltinModule('node:url');
const { compileFunction } = process.getBuiltinModule('node:vm');

export type Yaml = typeof YamlModule;

/** How long a loaded yaml is reused: the calls of one configuration change come within it. */
const HOLD_MS = 1000;

let held: Yaml | undefined;

/** Evaluates the bundled CommonJS file; nothing else refers to what it makes once the caller lets go. */
function evaluate(path: string): Yaml {
  const module = { exports: {} };
  const run = compileFunction(readFileSync(path, 'utf8'), ['module', 'exports', 'require'], { filename: path }) as (m: typeof module, e: object, r: NodeJS.Require) => void;
  run(module, module.exports, createRequire(path));
  return module.exports as Yaml;
}

/** The yaml package: the same one for calls within a second, a new one after. */
export function yaml(): Yaml {
  if (held !== undefined) return held;
  const bundled = fileURLToPath(new URL('./yaml.cjs', import.meta.url));
  const loaded = existsSync(bundled) ? evaluate(bundled) : createRequire(import.meta.url)('yaml') as Yaml;
  held = loaded;
  setTimeout(() => { held = undefined; }, HOLD_MS).unref();
  return loaded;
}
