// Matches what is on this node's USB bus (sysfs, or systeminformation.usb()) to an EdgeDevice's
// declared USB identity: the typed spec.usb {vendorId, productId, serial} when present, else the
// spec.customMetadata keys a Shifu manifest can carry: usbVendorId and usbProductId (hex, e.g.
// "0403", "6001") and optionally usbSerial.
import type { EdgeDeviceSpec } from '../shared/crds/edgedevice.ts';
import type { Parsed } from './address.ts';

export const USB_KEYS = { vendorId: 'usbVendorId', productId: 'usbProductId', serial: 'usbSerial' } as const;

export interface UsbIdentity {
  readonly vendorId: string;
  readonly productId: string;
  readonly serial?: string;
  /** Declared in spec.usb; absent: in spec.customMetadata. Mismatch messages name the fields to check. */
  readonly typed?: true;
}

/** The fields of systeminformation's UsbData that matching reads. */
export interface UsbSeen {
  /** "vvvv:pppp" in hex on Linux. */
  readonly id: number | string | null;
  readonly name?: string | null;
  readonly vendor?: string | null;
  readonly serialNumber?: string | null;
}

export type UsbMatch =
  | { readonly state: 'present'; readonly seen: UsbSeen }
  | { readonly state: 'absent' }
  | { readonly state: 'mismatch'; readonly message: string };

function hexId(text: string): string | undefined {
  const clean = text.trim().toLowerCase().replace(/^0x/, '');
  return /^[0-9a-f]{1,4}$/.test(clean) ? clean.padStart(4, '0') : undefined;
}

function identityFrom(vendor: string, product: string, serial: string | undefined, fields: { vendorId: string; productId: string }): Parsed<UsbIdentity> {
  const vendorId = hexId(vendor);
  const productId = hexId(product);
  if (vendorId === undefined || productId === undefined) {
    return { ok: false, message: `${vendorId === undefined ? fields.vendorId : fields.productId} must be 1-4 hex digits, e.g. "0403"` };
  }
  const trimmed = serial?.trim();
  return { ok: true, value: { vendorId, productId, ...(trimmed ? { serial: trimmed } : {}) } };
}

/** The identity an EdgeDevice declares; undefined when it declares none, an error when it is malformed. */
export function usbIdentityOf(metadata: Readonly<Record<string, string>> | undefined): Parsed<UsbIdentity> | undefined {
  const vendor = metadata?.[USB_KEYS.vendorId];
  const product = metadata?.[USB_KEYS.productId];
  if (vendor === undefined && product === undefined) return undefined;
  if (vendor === undefined || product === undefined) {
    return { ok: false, message: `spec.customMetadata needs both ${USB_KEYS.vendorId} and ${USB_KEYS.productId} (hex, e.g. "0403" and "6001")` };
  }
  return identityFrom(vendor, product, metadata?.[USB_KEYS.serial], { vendorId: `spec.customMetadata.${USB_KEYS.vendorId}`, productId: `spec.customMetadata.${USB_KEYS.productId}` });
}

/** The identity a device declares: spec.usb when set (the API server checked its form), else customMetadata. */
export function usbIdentityOfSpec(spec: Pick<EdgeDeviceSpec, 'usb' | 'customMetadata'>): Parsed<UsbIdentity> | undefined {
  if (spec.usb === undefined) return usbIdentityOf(spec.customMetadata);
  const parsed = identityFrom(spec.usb.vendorId, spec.usb.productId, spec.usb.serial, { vendorId: 'spec.usb.vendorId', productId: 'spec.usb.productId' });
  return parsed.ok ? { ok: true, value: { ...parsed.value, typed: true } } : parsed;
}

/** vendor and product of a systeminformation id ("0403:6001"); undefined when it has none. */
export function seenIds(seen: UsbSeen): { vendorId: string; productId: string } | undefined {
  if (typeof seen.id !== 'string') return undefined;
  const [vendor = '', product = ''] = seen.id.split(':');
  const vendorId = hexId(vendor);
  const productId = hexId(product);
  return vendorId === undefined || productId === undefined ? undefined : { vendorId, productId };
}

function label(seen: UsbSeen): string {
  return [seen.vendor, seen.name].filter((s) => s).join(' ') || String(seen.id);
}

/**
 * present: a device with this vendor:product (and serial, when declared) is plugged in;
 * mismatch: the declared serial is on another model, or this model is here with another serial;
 * absent: neither.
 */
export function matchUsb(identity: UsbIdentity, bus: readonly UsbSeen[]): UsbMatch {
  const model = `${identity.vendorId}:${identity.productId}`;
  const sameModel = bus.filter((s) => { const ids = seenIds(s); return ids !== undefined && `${ids.vendorId}:${ids.productId}` === model; });
  if (identity.serial === undefined) {
    const first = sameModel[0];
    return first === undefined ? { state: 'absent' } : { state: 'present', seen: first };
  }
  const exact = sameModel.find((s) => s.serialNumber?.trim() === identity.serial);
  if (exact !== undefined) return { state: 'present', seen: exact };
  const serialElsewhere = bus.find((s) => s.serialNumber?.trim() === identity.serial);
  if (serialElsewhere !== undefined) {
    return { state: 'mismatch', message: `USB serial ${identity.serial} is on ${String(serialElsewhere.id)} (${label(serialElsewhere)}), not on ${model}: check ${identity.typed ? 'spec.usb.vendorId/productId' : `${USB_KEYS.vendorId}/${USB_KEYS.productId}`}` };
  }
  const other = sameModel[0];
  if (other !== undefined) {
    const serials = sameModel.map((s) => s.serialNumber?.trim() || '(none)').join(', ');
    return { state: 'mismatch', message: `a ${model} (${label(other)}) is plugged in with serial ${serials}, not ${identity.serial}: check ${identity.typed ? 'spec.usb.serial' : USB_KEYS.serial}` };
  }
  return { state: 'absent' };
}
