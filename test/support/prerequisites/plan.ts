// What the test suite needs from the machine, and the plan to get what is missing: pure, so the
// decision (install, or stop and say what to run) is table-tested without touching the machine.
import { HOST_PACKAGES } from '../realnode/host.ts';

/** A command the tests run (or a file they use), and the Debian package that provides it. */
export interface Requirement {
  /** Looked for on the PATH; or, when it starts with '/', as that file. */
  readonly command: string;
  readonly debianPackage: string;
  /** Why the tests need it, printed when it is installed or missing. */
  readonly why: string;
}

/** Every Debian package the tests use for real, in one place. */
export const REQUIREMENTS: readonly Requirement[] = [
  { command: 'openssl', debianPackage: 'openssl', why: 'the test PKI and federation certificates' },
  { command: 'gcc', debianPackage: 'gcc', why: "kine's sqlite driver (cgo)" },
  { command: 'unzip', debianPackage: 'unzip', why: 'unpacking a Go toolchain when none is installed' },
  { command: 'chromium', debianPackage: 'chromium', why: 'the edgeMap page tests' },
  { command: 'dot', debianPackage: 'graphviz', why: "checking the edgeMap's DOT output" },
  { command: 'mosquitto', debianPackage: 'mosquitto', why: 'the outside MQTT broker' },
  { command: 'mosquitto_passwd', debianPackage: 'mosquitto-clients', why: "Mosquitto's password files" },
  { command: 'socat', debianPackage: 'socat', why: 'pseudo-terminal pairs for Modbus RTU' },
  // the image built here (busybox) and the real node's runtime, network and pause image
  ...HOST_PACKAGES.map(([file, debianPackage]) => ({ command: file, debianPackage, why: 'the image and the real node' })),
];

/** Directories searched besides PATH: Debian puts daemons in sbin, which a user's PATH may lack. */
export const EXTRA_PATH_DIRS: readonly string[] = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

export type Plan =
  | { readonly kind: 'ready' }
  | { readonly kind: 'install'; readonly packages: readonly string[]; readonly missing: readonly Requirement[] }
  | { readonly kind: 'ask'; readonly command: string; readonly missing: readonly Requirement[] };

/**
 * The plan for the missing commands: nothing to do, install them (as root), or stop and print the
 * one command a user with sudo runs.
 */
export function planPrerequisites(missing: readonly Requirement[], isRoot: boolean): Plan {
  if (missing.length === 0) return { kind: 'ready' };
  const packages = [...new Set(missing.map((r) => r.debianPackage))].sort();
  if (isRoot) return { kind: 'install', packages, missing };
  return { kind: 'ask', command: `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`, missing };
}

/** One line per missing package, for the log and for the message that stops the run. */
export function describeMissing(missing: readonly Requirement[]): string[] {
  return missing.map((r) => `  ${r.debianPackage} (${r.command}): ${r.why}`);
}

/** The PATH the test processes get: PATH first, then the extra directories it lacks. */
export function testPath(path: string, extra: readonly string[]): string {
  const dirs = path.split(':').filter((d) => d !== '');
  for (const dir of extra) if (!dirs.includes(dir)) dirs.push(dir);
  return dirs.join(':');
}
