// One command for every deviceShifu benchmark:
//   npm run bench:deviceshifu -- [--protocol http|opcua|modbus|lwm2m] [--host] [that benchmark's own flags]
// http (the default) is bench/deviceshifu.ts, against a Go reverse proxy; the others measure one
// protocol's deviceShifu against that protocol's own client straight to its mock. --protocol is
// taken out of the arguments before the chosen benchmark reads them.
const BENCHES: Readonly<Record<string, string>> = {
  http: './deviceshifu.ts',
  opcua: './deviceshifu-opcua.ts',
  modbus: './deviceshifu-modbus.ts',
  lwm2m: './deviceshifu-lwm2m.ts',
};
/** --host: that protocol's devices on the shared per-node host, against its dedicated deviceShifu. */
const HOST_BENCHES: Readonly<Record<string, string>> = { lwm2m: './deviceshifu-lwm2m-host.ts' };

const at = process.argv.findIndex((a) => a === '--protocol' || a.startsWith('--protocol='));
let protocol = 'http';
if (at >= 0) {
  const arg = process.argv[at] ?? '';
  protocol = (arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : process.argv[at + 1] ?? '').toLowerCase();
  process.argv.splice(at, arg.includes('=') ? 1 : 2);
}
const bench = process.argv.includes('--host') ? HOST_BENCHES[protocol] : BENCHES[protocol];
if (bench === undefined) {
  console.error(process.argv.includes('--host') ? `--host is measured for ${Object.keys(HOST_BENCHES).join(', ')}, not "${protocol}"` : `--protocol "${protocol}" is not one of ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
await import(bench);
