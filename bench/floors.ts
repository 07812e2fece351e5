// The floors a component stands on, as scripts for `node -e` with no code but Node's own: an HTTP
// server listening, and one TLS watch on the API server. The footprint benches run them beside
// the component with the same flags, so its RSS reads against what Node itself costs.
import { endpointFromKubeconfig } from '../shared/kube/client.ts';

export const HTTP_FLOOR = `process.getBuiltinModule('node:http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1');
setInterval(() => {}, 1000);`;

/** Watches FLOOR_ENDPOINT (from floorEndpoint), reconnecting when the watch ends. */
export const TLS_WATCH_FLOOR = `
const https = process.getBuiltinModule('node:https');
const e = JSON.parse(process.env.FLOOR_ENDPOINT);
const b = (v) => v === undefined ? undefined : Buffer.from(v, 'base64');
const agent = new https.Agent({ keepAlive: true, ca: b(e.ca), cert: b(e.cert), key: b(e.key) });
const watch = () => https.get({ host: e.host, port: e.port, path: e.path + '?watch=true&timeoutSeconds=25', agent }, (res) => { res.resume(); res.on('end', watch); })
  .on('error', () => setTimeout(watch, 1000));
watch();
setInterval(() => {}, 1000);`;

/** FLOOR_ENDPOINT for TLS_WATCH_FLOOR: the API server and credentials of a kubeconfig, and the path to watch. */
export function floorEndpoint(kubeconfig: string, path: string): string {
  const endpoint = endpointFromKubeconfig(kubeconfig);
  const url = new URL(endpoint.server);
  const b64 = (v: string | Buffer | undefined): string | undefined => (v === undefined ? undefined : Buffer.from(v).toString('base64'));
  return JSON.stringify({ host: url.hostname, port: url.port, path, ca: b64(endpoint.ca), cert: b64(endpoint.cert), key: b64(endpoint.key) });
}
