// Child process for the footprint test: records every module URL resolved while a standalone
// deviceShifu starts and serves one request, then prints them as JSON. Arguments: the config dir,
// the EdgeDevice file, and the instruction to call.
import { registerHooks } from 'node:module';

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.add(result.url);
    return result;
  },
});

const [configDir = '', edgedeviceFile = '', instruction = ''] = process.argv.slice(2);
const { runStandalone } = await import('../../../deviceshifu/run.ts');
const { Settings } = await import('../../../deviceshifu/settings.ts');
const { loadConfig } = await import('../../../shared/config.ts');
const { createLogger } = await import('../../../shared/log.ts');
const settings = loadConfig(Settings, { argv: ['--port', '0', '--config-dir', configDir, '--edgedevice-file', edgedeviceFile], env: {} });
const running = await runStandalone({ settings, env: {}, logger: createLogger('deviceshifu', { level: 'silent' }), edgedeviceFile, pollMs: 200 });
let status = 0;
for (let i = 0; i < 100 && status !== 200; i++) {
  status = (await fetch(`http://127.0.0.1:${running.address.port}/${instruction}`)).status;
  if (status !== 200) await new Promise((r) => setTimeout(r, 100));
}
await running.stop();
process.stdout.write(`${JSON.stringify({ status, modules: [...resolved] })}\n`);
process.exit(0);
