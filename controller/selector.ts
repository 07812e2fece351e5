// Equality-based label selectors ("a=b,c!=d,e") as a predicate over labels (pure).
import { EdgeshifuError } from '../shared/errors.ts';

export function labelSelectorMatcher(selector: string): (labels: Readonly<Record<string, string>>) => boolean {
  const terms = selector.split(',').map((t) => t.trim()).filter((t) => t !== '').map((term) => {
    const match = /^([\w./-]+)\s*(==|=|!=)?\s*([\w.-]*)$/.exec(term);
    if (match === null) throw new EdgeshifuError('invalid', `label selector term "${term}" is not key, key=value or key!=value`);
    return { key: match[1] ?? '', op: match[2], value: match[3] ?? '' };
  });
  return (labels) => terms.every(({ key, op, value }) => {
    if (op === undefined) return key in labels;
    return op === '!=' ? labels[key] !== value : labels[key] === value;
  });
}
