// The object instances a client announces in its Register or Update payload, CoRE Link Format
// (RFC 6690) as LwM2M TS 1.0 §5.3.1 uses it: </1/0>,</3/0>,</3303/0>;ver=1.1 (pure).
import { CoapRefusal } from './flow.ts';

export const MAX_LINKS = 1024;

export function parseObjectLinks(payload: Buffer): string[] {
  const text = payload.toString('utf8').trim();
  if (text === '') return [];
  const paths: string[] = [];
  for (const link of text.split(',')) {
    const match = /^\s*<([^>]*)>/.exec(link);
    if (match === null) throw new CoapRefusal('4.00', `"${link.slice(0, 40)}" is not a CoRE link (</object/instance>)`);
    const path = match[1] ?? '';
    // </> with rt="oma.lwm2m" names the root path; only object and object-instance links are objects
    if (/^\/\d{1,5}(\/\d{1,5})?$/.test(path)) paths.push(path);
    if (paths.length > MAX_LINKS) throw new CoapRefusal('4.13', `more than ${MAX_LINKS} object links`);
  }
  return paths;
}
