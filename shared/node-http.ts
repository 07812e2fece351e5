// node:http and node:https, loaded as require() would (process.getBuiltinModule). An ESM
// `import … from 'node:http'` makes Node build the module's namespace, which reads every export,
// including the lazy WebSocket getters that load undici: about 10 MB of RSS that no edgeshifu
// process uses (measured on node 24 with the image's flags: +14.5 MB RSS by import, +3.8 MB by
// require). Type imports stay ordinary.
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Tls from 'node:tls';

export const http: typeof Http = process.getBuiltinModule('node:http');

/** node:https on first use: it brings TLS and crypto, which plain-HTTP paths never need. */
export function https(): typeof Https {
  return process.getBuiltinModule('node:https');
}

/**
 * node:tls on first use, not by ESM import either: its namespace would read the lazy
 * `rootCertificates` export and copy Node's ~140 bundled root certificates into JavaScript strings.
 */
export function tls(): typeof Tls {
  return process.getBuiltinModule('node:tls');
}

/** One part of a node:http server: answers the request and says true, or leaves it and says false. */
export type HttpRoute = (req: Http.IncomingMessage, res: Http.ServerResponse) => boolean | Promise<boolean>;
