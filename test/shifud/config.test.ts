// shifud's configuration: the node name from the downward API, and a clear error without it.
import test from 'ava';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { loadShifudConfig } from '../../shifud/config.ts';

test('the node name comes from NODE_NAME (downward API) unless given explicitly', (t) => {
  t.is(loadShifudConfig([], { NODE_NAME: 'edge-1' }).nodeName, 'edge-1');
  t.is(loadShifudConfig([], { NODE_NAME: 'edge-1', EDGESHIFU_NODE_NAME: 'edge-2' }).nodeName, 'edge-2');
  t.is(loadShifudConfig(['--node-name', 'edge-3'], { NODE_NAME: 'edge-1' }).nodeName, 'edge-3');
});

test('without a node name shifud says where to set it', (t) => {
  const error = t.throws(() => loadShifudConfig([], {}));
  t.true(isEdgeshifuError(error, 'invalid'));
  t.regex(error.message, /set NODE_NAME from the downward API \(fieldPath spec.nodeName\), EDGESHIFU_NODE_NAME or --node-name/);
});

test('defaults are the footprint-friendly ones, and bad values name the key', (t) => {
  const config = loadShifudConfig([], { NODE_NAME: 'edge-1' });
  t.like(config, { sampleIntervalSeconds: 10, heartbeatSeconds: 60, minWriteIntervalSeconds: 30, probeIntervalSeconds: 30, probeConcurrency: 8, deviceNamespace: '' });
  t.is(config.mqttUrl, undefined);
  const error = t.throws(() => loadShifudConfig(['--probe-concurrency', '0'], { NODE_NAME: 'edge-1' }));
  t.regex(error.message, /config.probeConcurrency must be >= 1/);
});
