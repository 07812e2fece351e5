// One ConfigMap key's YAML, parsed with positions kept, so every later error can say "key, line N".
import type { Document, LineCounter } from 'yaml';
import type { FieldError } from '../../shared/validation.ts';
import { yaml, type Yaml } from '../../shared/yaml.ts';

export interface YamlSource {
  readonly key: string;
  readonly value: unknown;
  /** Line (1-based) of the node at a dotted path below the key, or of its nearest existing parent. */
  lineOf(path: readonly string[]): number;
}

export interface YamlProblem {
  readonly key: string;
  readonly line: number;
  readonly message: string;
}

export function formatProblem(p: YamlProblem): string {
  return `${p.key} line ${p.line}: ${p.message}`;
}

type Ranged = { range?: [number, number, number] | null } | null | undefined;

/** The node at `path`, or the key of its entry when it names a map entry (that is the line people look at). */
function nodeAt(y: Yaml, doc: Document, path: readonly string[]): Ranged {
  if (path.length === 0) return doc.contents;
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  if (y.isMap(parent)) {
    const pair = parent.items.find((item) => y.isScalar(item.key) && String(item.key.value) === path.at(-1));
    if (pair !== undefined) return pair.key as Ranged;
  }
  return doc.getIn(path, true) as Ranged;
}

function lineFinder(y: Yaml, doc: Document, counter: LineCounter): (path: readonly string[]) => number {
  return (path) => {
    for (let depth = path.length; depth >= 0; depth -= 1) {
      const range = nodeAt(y, doc, path.slice(0, depth))?.range;
      if (range) return counter.linePos(range[0]).line;
    }
    return 1;
  };
}

/** Parses `text`; YAML syntax errors (and duplicate keys) come back as problems with their line (from the error's offset: yaml fills `linePos` only with prettyErrors). */
export function parseYamlSource(key: string, text: string): { source?: YamlSource; problems: YamlProblem[] } {
  const y = yaml();
  const counter = new y.LineCounter();
  const doc = y.parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return { problems: doc.errors.map((e) => ({ key, line: counter.linePos(e.pos[0]).line, message: e.message.split('\n')[0] ?? e.message })) };
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  const contents = doc.contents;
  if (contents !== null && !y.isCollection(contents) && typeof value === 'string' && value.trim() !== '') {
    return { problems: [{ key, line: 1, message: 'is a plain string, expected a YAML mapping (is the indentation right?)' }] };
  }
  return { source: { key, value, lineOf: lineFinder(y, doc, counter) }, problems: [] };
}

/** Validator errors (dotted fields rooted at the key) with the line each refers to. */
export function placeErrors(source: YamlSource, errors: readonly FieldError[]): YamlProblem[] {
  // "value may be null" is modelled as anyOf: its branch errors only repeat the real one.
  const noise = (e: FieldError): boolean => e.message === 'must be null' || e.message === 'must match a schema in anyOf';
  const useful = errors.some((e) => !noise(e)) ? errors.filter((e) => !noise(e)) : errors;
  return useful.map((e) => {
    const path = e.field.split('.').slice(1);
    return { key: source.key, line: source.lineOf(path), message: `${e.field} ${e.message}` };
  });
}
