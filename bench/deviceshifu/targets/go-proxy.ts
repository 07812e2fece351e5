// The Go baseline: httputil.ReverseProxy in front of the device (go/proxy.go).
import { goBinary } from '../go-binary.ts';
import { madeCgroup, spawnReady, stopChild, type Target } from '../target.ts';

export const goProxy: Target = {
  name: 'Go proxy',
  start: async (context) => {
    const binary = await goBinary('proxy');
    const cgroup = await context.cgroup('go-proxy');
    const { child, line } = await spawnReady(binary, [`http://${context.device}`], (l) => typeof l.address === 'string', { cgroup });
    return {
      urls: [`http://${String(line.address)}/${context.path}`], pids: [child.pid ?? 0], devices: 1, ...madeCgroup(cgroup),
      describe: `net/http/httputil.ReverseProxy (${binary})`,
      stop: () => stopChild(child, cgroup),
    };
  },
};
