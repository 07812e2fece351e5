// The targets of one bench run, in the order each round calls them. A new target is one module
// under targets/ exporting a Target, listed here.
import { HOST_NODE_FLAGS } from '../../controller/bundle/host.ts';
import type { Target } from './target.ts';
import { direct } from './targets/direct.ts';
import { goProxy } from './targets/go-proxy.ts';
import { nodeFloor } from './targets/node-floor.ts';
import { kubeFloor } from './targets/kube-floor.ts';
import { deviceShifuCompare, deviceShifuDedicated, deviceShifuImageFlags, deviceShifuNoIdleGc } from './targets/deviceshifu-dedicated.ts';
import { deviceShifuHost } from './targets/deviceshifu-host.ts';

export const TARGETS: readonly Target[] = [
  direct, goProxy, nodeFloor, kubeFloor, deviceShifuDedicated, deviceShifuCompare, deviceShifuNoIdleGc, deviceShifuImageFlags, deviceShifuHost(1), deviceShifuHost(10), deviceShifuHost(50), deviceShifuHost(10, { name: 'no idle gc', flags: HOST_NODE_FLAGS.filter((f) => f !== '--expose-gc') }),
];
