// The real-node tests (`npm run test:realnode`): one real node per host, so one file at a time,
// and a control plane, a node and the image to start before the first result.
export default {
  files: ['test/realnode/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '10m',
  concurrency: 1,
  workerThreads: false,
};
