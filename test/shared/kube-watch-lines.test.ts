// A watch's body is one JSON event per line, in chunks cut anywhere: forEachLine hands each line
// whole, however the chunks fall, with `\r\n` taken as `\n` (as node:readline did before it).
import { Readable } from 'node:stream';
import test from 'ava';
import { forEachLine } from '../../shared/kube/client.ts';

async function lines(chunks: readonly string[]): Promise<string[]> {
  const seen: string[] = [];
  // a Readable is what a watch's reply is (setEncoding('utf8'): strings), one chunk per array item
  await forEachLine(Readable.from(chunks, { objectMode: true }) as AsyncIterable<string>, (line) => { seen.push(line); });
  return seen;
}

test('lines cut across chunks come whole, several lines in one chunk come apart', async (t) => {
  t.deepEqual(await lines(['{"type":"ADD', 'ED"}\n{"type":"MODIFIED"}\n{"ty', 'pe":"DELETED"}\n']), ['{"type":"ADDED"}', '{"type":"MODIFIED"}', '{"type":"DELETED"}']);
});

test('CRLF endings, empty lines and a last line without its newline', async (t) => {
  t.deepEqual(await lines(['a\r\n\r', '\nb\n\nc']), ['a', '', 'b', '', 'c']);
});

test('a chunk of one newline ends the line the chunks before it held', async (t) => {
  t.deepEqual(await lines(['x', 'y', '\n', '\n']), ['xy', '']);
  t.deepEqual(await lines([]), []);
});
