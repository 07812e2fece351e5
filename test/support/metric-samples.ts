// A metric's samples read back from a registry's scrape text (what /metrics serves).
import type { Registry } from '../../shared/prometheus.ts';

export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export function samples(registry: Registry, name: string): Sample[] {
  const found: Sample[] = [];
  for (const line of registry.metrics().split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}
