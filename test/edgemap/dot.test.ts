import test from 'ava';
import { execFileSync } from 'node:child_process';
import { EdgeMap, toDot } from '../../edgemap/index.ts';
import { plant } from './fixtures.ts';

interface DotJson { objects?: Array<Record<string, string>>; edges?: Array<Record<string, string | number>> }

/** Debian's graphviz parses what we wrote (apt-get install -y graphviz). */
function graphviz(dot: string): DotJson {
  return JSON.parse(execFileSync('dot', ['-Tjson0'], { input: dot, encoding: 'utf8' })) as DotJson;
}

test('DOT lists every vertex with its kind and every link with its type, and graphviz reads it', (t) => {
  const dot = toDot(plant());
  t.true(dot.startsWith('graph edgemap {'));
  t.regex(dot, /"plant\/thermo" \[kind="edgeDevice", phase="Running", shape="ellipse"/);
  t.regex(dot, /"line-a" -- "plant\/thermo" \[type="USB", color="#[0-9a-f]{6}", latencyMs=0.5\]/);
  const parsed = graphviz(dot);
  t.deepEqual(parsed.objects?.map((o) => o.name).sort(), ['annex', 'annex/press', 'line-a', 'line-b', 'munich', 'plant/agv', 'plant/arm', 'plant/thermo']);
  t.is(parsed.edges?.length, 7);
});

test('names and values with quotes, backslashes and line breaks cannot break out of their string', (t) => {
  const map = new EdgeMap();
  map.upsertCluster('o"hare', { location: { zone: 'x"]; "evil" -- "line-a' } });
  map.upsertNode('line-a', { location: { zone: 'hall\\7\nbay "2"\r\nend' } });
  map.link('o"hare', 'line-a', 'Federation');
  const dot = toDot(map);
  t.true(dot.includes('"o\\"hare"'));
  t.true(dot.includes('zone="hall\\\\7\\nbay \\"2\\"\\nend"'));
  t.is(dot.split('\n').length, 7, 'one line per vertex and link: no raw line breaks');
  const parsed = graphviz(dot);
  t.deepEqual(parsed.objects?.map((o) => o.name).sort(), ['line-a', 'o"hare'], 'no "evil" vertex');
  t.is(parsed.edges?.length, 1);
  t.is(parsed.objects?.find((o) => o.name === 'o"hare')?.zone, 'x"]; "evil" -- "line-a');
});

test('an empty map is an empty graph', (t) => {
  t.is(toDot(new EdgeMap()), 'graph edgemap {\n  node [fontname="sans-serif"];\n}\n');
  t.deepEqual(graphviz(toDot(new EdgeMap())).objects ?? [], []);
});
