// The floor deviceShifu stands on: a bare node:http reverse proxy doing nothing else (keep-alive
// agent, headers passed through, body piped), with deviceShifu's flags. What deviceShifu costs
// above it is its own; what the floor costs against the Go proxy is Node's.
import { deviceShifuNodeFlags } from '../../node-flags.ts';
import { madeCgroup, spawnReady, stopChild, type Target } from '../target.ts';

/** The proxy, as a script for `node -e` (DEVICE=host:port); it prints its address as JSON once it listens. */
export const PROXY_SCRIPT = `
const http = process.getBuiltinModule('node:http');
const [host, port] = process.env.DEVICE.split(':');
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const server = http.createServer((req, res) => {
  const out = http.request({ host, port, path: req.url, method: req.method, headers: req.headers, agent }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  out.on('error', () => { res.statusCode = 502; res.end(); });
  req.pipe(out);
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ address: '127.0.0.1:' + server.address().port })));`;

export const nodeFloor: Target = {
  name: 'node proxy',
  start: async (context) => {
    const flags = context.nodeFlags ?? deviceShifuNodeFlags();
    const cgroup = await context.cgroup('node-floor');
    const { child, line } = await spawnReady(process.execPath, [...flags, '-e', PROXY_SCRIPT], (l) => typeof l.address === 'string', { cgroup, env: { DEVICE: context.device } });
    return {
      urls: [`http://${String(line.address)}/${context.path}`], pids: [child.pid ?? 0], devices: 1, ...madeCgroup(cgroup),
      describe: `bare node:http proxy: node ${process.version} ${flags.join(' ')}`,
      stop: () => stopChild(child, cgroup),
    };
  },
};
