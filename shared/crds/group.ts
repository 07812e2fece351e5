// The API group and version of every edgeshifu resource, apart from the CRD schemas in
// resources.ts: a client that needs only these names (deviceShifu's watch of its EdgeDevice) does
// not load TypeBox and every CRD's schema with them.
export const GROUP = 'shifu.edgenesis.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
