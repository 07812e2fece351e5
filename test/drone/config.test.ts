import test from 'ava';
import { loadConfig, printableConfig } from '../../shared/config.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { DroneSettings, droneConfig } from '../../controller/drone/config.ts';

const env = { EDGESHIFU_DRONE_CLUSTER: 'edge-1', EDGESHIFU_DRONE_BROKER_URL: 'mqtts://127.0.0.1:8883', EDGESHIFU_DRONE_USERNAME: 'edge-1', EDGESHIFU_DRONE_PASSWORD: 'pw-secret-9' };

test('the agent settings come from flags and environment with the documented defaults, password masked when printed', (t) => {
  const settings = loadConfig(DroneSettings, { env, argv: ['--drone-mode', 'sealed', '--drone-scale-percent', '30'] });
  const config = droneConfig(settings, new Map([['edge-2', 2]]));
  t.like(config, { cluster: 'edge-1', mode: 'sealed', scalePercent: 30, agreementMs: 0, weakAgreementMs: 2000, batchMs: 0, fanout: 4, advertGapMs: 100 });
  t.is(config.weights.get('edge-2'), 2);
  t.false(JSON.stringify(printableConfig(DroneSettings, settings)).includes('pw-secret-9'));
});

const bad = [
  { what: 'a scale above 100', argv: ['--drone-scale-percent', '150'], message: /droneScalePercent/ },
  { what: 'an unknown mode', argv: ['--drone-mode', 'public'], message: /droneMode/ },
  { what: 'a cluster id with capitals', argv: ['--drone-cluster', 'Edge_1'], message: /droneCluster/ },
  { what: 'a broker URL that is not MQTT', argv: ['--drone-broker-url', 'http://x'], message: /droneBrokerUrl/ },
];
for (const b of bad) {
  test(`${b.what} is refused naming the setting`, (t) => {
    const err = t.throws(() => loadConfig(DroneSettings, { env, argv: b.argv }));
    t.true(isEdgeshifuError(err, 'invalid'));
    t.regex(err.message, b.message);
  });
}
