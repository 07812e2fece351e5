// Modbus exception responses → error kinds, in one table. The codes and names are the Modbus
// application protocol's (section 7); the kind says whose move it is: invalid = the request must
// change, unavailable = the device cannot serve now, timeout = a gateway found no target.
import { EdgeshifuError, type ErrorKind } from '../../shared/errors.ts';

export const MODBUS_EXCEPTIONS: Readonly<Record<number, { readonly name: string; readonly kind: ErrorKind }>> = {
  0x01: { name: 'illegal function', kind: 'invalid' },
  0x02: { name: 'illegal data address', kind: 'invalid' },
  0x03: { name: 'illegal data value', kind: 'invalid' },
  0x04: { name: 'slave device failure', kind: 'unavailable' },
  0x05: { name: 'acknowledge (the device accepted a long command and is still working on it)', kind: 'conflict' },
  0x06: { name: 'slave device busy', kind: 'conflict' },
  0x08: { name: 'memory parity error', kind: 'unavailable' },
  0x0a: { name: 'gateway path unavailable', kind: 'unavailable' },
  0x0b: { name: 'gateway target device failed to respond', kind: 'timeout' },
};

/** The error for exception `code` answered to `what` (e.g. "reading holding 40 x2"). */
export function modbusException(code: number, what: string): EdgeshifuError {
  const known = MODBUS_EXCEPTIONS[code];
  const name = known?.name ?? 'unknown exception';
  return new EdgeshifuError(known?.kind ?? 'unavailable', `Modbus exception ${code} (${name}) ${what}`);
}
