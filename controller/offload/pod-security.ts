// What a pod spec may ask for on a host, by the Pod Security Standards' own field list (pure):
// `baseline` refuses known privilege escalations, `restricted` adds the hardening rules. A
// neighbour's workload is checked before the host accepts it, and every offending field is named
// by its path, so the user sees exactly what to change. The hosted namespace enforces the same
// level (pod-security.kubernetes.io/enforce), which catches anything this check missed.
// Values a template leaves out are filled by `hardenedPodSpec`, so a plain template passes.

export const POD_SECURITY_LEVELS = ['baseline', 'restricted'] as const;
export type PodSecurityLevel = typeof POD_SECURITY_LEVELS[number];

/** Baseline: capabilities a container may add (Pod Security Standards, "Capabilities"). */
const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const RESTRICTED_CAPABILITIES = new Set(['NET_BIND_SERVICE']);
/** Baseline: the safe, namespaced sysctls. */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
/** Restricted: the only volume types. */
const RESTRICTED_VOLUMES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Obj : {};
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map(obj) : [];
}

/** One refused field: its path in the pod spec (`spec.containers[0].securityContext.privileged`) and why. */
export interface Violation {
  readonly path: string;
  readonly why: string;
}

function containersOf(spec: Obj): Array<{ path: string; container: Obj }> {
  return (['initContainers', 'containers', 'ephemeralContainers'] as const).flatMap((field) =>
    list(spec[field]).map((container, i) => ({ path: `${field}[${String(i)}]`, container })));
}

/** Rules of one security context (the pod's or a container's) that both places share. */
function contextRules(sc: Obj, at: string, level: PodSecurityLevel, out: Violation[]): void {
  if (obj(sc.windowsOptions).hostProcess === true) out.push({ path: `${at}.windowsOptions.hostProcess`, why: 'HostProcess containers are not allowed' });
  const selinux = obj(sc.seLinuxOptions);
  if (typeof selinux.type === 'string' && !SELINUX_TYPES.has(selinux.type)) out.push({ path: `${at}.seLinuxOptions.type`, why: `SELinux type ${selinux.type} is not allowed` });
  for (const key of ['user', 'role'] as const) if (selinux[key] !== undefined && selinux[key] !== '') out.push({ path: `${at}.seLinuxOptions.${key}`, why: 'must not be set' });
  const seccomp = obj(sc.seccompProfile).type;
  if (seccomp === 'Unconfined') out.push({ path: `${at}.seccompProfile.type`, why: 'Unconfined is not allowed' });
  const apparmor = obj(sc.appArmorProfile).type;
  if (apparmor === 'Unconfined') out.push({ path: `${at}.appArmorProfile.type`, why: 'Unconfined is not allowed' });
  if (level === 'restricted') {
    if (sc.runAsNonRoot === false) out.push({ path: `${at}.runAsNonRoot`, why: 'must not be false: containers run as a non-root user' });
    if (sc.runAsUser === 0) out.push({ path: `${at}.runAsUser`, why: 'must not be 0 (root)' });
  }
}

function capabilityRules(sc: Obj, scAt: string, level: PodSecurityLevel, out: Violation[]): void {
  const caps = obj(sc.capabilities);
  const allowed = level === 'restricted' ? RESTRICTED_CAPABILITIES : BASELINE_CAPABILITIES;
  const added = Array.isArray(caps.add) ? caps.add.map(String) : [];
  const beyond = added.filter((cap) => !allowed.has(cap));
  if (beyond.length > 0) out.push({ path: `${scAt}.capabilities.add`, why: `${beyond.join(', ')} may not be added (${level} allows ${[...allowed].join(', ')})` });
  const drop = Array.isArray(caps.drop) ? caps.drop.map(String) : undefined;
  if (level === 'restricted' && drop !== undefined && !drop.includes('ALL')) out.push({ path: `${scAt}.capabilities.drop`, why: 'must include ALL' });
}

/** Restricted: no privilege escalation, and a seccomp profile (a container's own value wins over the pod's). */
function restrictedContainerRules(sc: Obj, scAt: string, podSc: Obj, out: Violation[]): void {
  if (sc.allowPrivilegeEscalation === true) out.push({ path: `${scAt}.allowPrivilegeEscalation`, why: 'must be false' });
  const seccomp = obj(sc.seccompProfile).type ?? obj(podSc.seccompProfile).type;
  if (seccomp !== undefined && seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost' && seccomp !== 'Unconfined') out.push({ path: `${scAt}.seccompProfile.type`, why: 'must be RuntimeDefault or Localhost' });
}

function containerRules(c: { container: Obj; at: string }, level: PodSecurityLevel, podSc: Obj, out: Violation[]): void {
  const { container, at } = c;
  const sc = obj(container.securityContext);
  const scAt = `${at}.securityContext`;
  if (sc.privileged === true) out.push({ path: `${scAt}.privileged`, why: 'privileged containers are not allowed' });
  capabilityRules(sc, scAt, level, out);
  if (sc.procMount !== undefined && sc.procMount !== 'Default') out.push({ path: `${scAt}.procMount`, why: 'must be Default' });
  for (const [i, p] of list(container.ports).entries()) {
    if (p.hostPort !== undefined && p.hostPort !== 0) out.push({ path: `${at}.ports[${String(i)}].hostPort`, why: 'host ports are not allowed' });
  }
  contextRules(sc, scAt, level, out);
  if (level === 'restricted') restrictedContainerRules(sc, scAt, podSc, out);
}

function hostRules(spec: Obj, root: string, level: PodSecurityLevel, out: Violation[]): void {
  for (const ns of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (spec[ns] === true) out.push({ path: `${root}.${ns}`, why: 'host namespaces are not allowed' });
  if (spec.hostUsers === true && level === 'restricted') out.push({ path: `${root}.hostUsers`, why: 'must not be true' });
  for (const [i, s] of list(obj(spec.securityContext).sysctls).entries()) {
    if (typeof s.name === 'string' && !SAFE_SYSCTLS.has(s.name)) out.push({ path: `${root}.securityContext.sysctls[${String(i)}].name`, why: `${s.name} is not a safe sysctl` });
  }
}

function volumeRules(spec: Obj, root: string, level: PodSecurityLevel, out: Violation[]): void {
  for (const [i, v] of list(spec.volumes).entries()) {
    const type = Object.keys(v).find((k) => k !== 'name');
    const at = `${root}.volumes[${String(i)}]`;
    if (v.hostPath !== undefined) out.push({ path: `${at}.hostPath`, why: 'hostPath volumes are not allowed' });
    else if (level === 'restricted' && type !== undefined && !RESTRICTED_VOLUMES.has(type)) out.push({ path: `${at}.${type}`, why: `${type} volumes are not allowed (restricted allows ${[...RESTRICTED_VOLUMES].join(', ')})` });
  }
}

function serviceAccountRules(spec: Obj, root: string, out: Violation[]): void {
  if (spec.automountServiceAccountToken === true) out.push({ path: `${root}.automountServiceAccountToken`, why: 'a hosted pod gets no ServiceAccount token' });
  for (const sa of ['serviceAccountName', 'serviceAccount'] as const) {
    if (spec[sa] !== undefined && spec[sa] !== '' && spec[sa] !== 'default') out.push({ path: `${root}.${sa}`, why: 'a hosted pod runs without a ServiceAccount of its own' });
  }
}

/**
 * Every field of a pod spec the level refuses, with its path under `root`. A ServiceAccount is
 * refused at every level: a hosted pod gets no token and no identity on the host.
 */
export function podSecurityViolations(podSpec: unknown, level: PodSecurityLevel, root = 'spec'): Violation[] {
  const spec = obj(podSpec);
  const out: Violation[] = [];
  hostRules(spec, root, level, out);
  const podSc = obj(spec.securityContext);
  contextRules(podSc, `${root}.securityContext`, level, out);
  volumeRules(spec, root, level, out);
  for (const { path, container } of containersOf(spec)) containerRules({ container, at: `${root}.${path}` }, level, podSc, out);
  serviceAccountRules(spec, root, out);
  return out;
}

/** The annotations a pod template may carry: AppArmor's older per-container form is a baseline rule too. */
export function annotationViolations(annotations: Readonly<Record<string, string>> | undefined, root: string): Violation[] {
  return Object.entries(annotations ?? {}).flatMap(([key, value]) => {
    if (!key.startsWith('container.apparmor.security.beta.kubernetes.io/')) return [];
    return value === 'runtime/default' || value.startsWith('localhost/') ? [] : [{ path: `${root}.annotations["${key}"]`, why: `AppArmor profile ${value} is not allowed` }];
  });
}

/**
 * The pod spec as a host runs it: no ServiceAccount token, and for `restricted` the hardening a
 * template left unsaid (non-root, no privilege escalation, every capability dropped but the one
 * it may add, the runtime's seccomp profile). Values the template set are kept: the check above
 * has already refused the ones the level does not allow.
 */
export function hardenedPodSpec(podSpec: Readonly<Record<string, unknown>>, level: PodSecurityLevel): Record<string, unknown> {
  const spec = structuredClone(podSpec) as Obj;
  spec.automountServiceAccountToken = false;
  delete spec.serviceAccountName;
  delete spec.serviceAccount;
  if (level !== 'restricted') return spec;
  const podSc = obj(spec.securityContext);
  spec.securityContext = { ...podSc, runAsNonRoot: podSc.runAsNonRoot ?? true, seccompProfile: podSc.seccompProfile ?? { type: 'RuntimeDefault' } };
  for (const field of ['initContainers', 'containers'] as const) {
    if (!Array.isArray(spec[field])) continue;
    spec[field] = list(spec[field]).map((c) => {
      const sc = obj(c.securityContext);
      const caps = obj(sc.capabilities);
      const hardened = { ...sc, allowPrivilegeEscalation: sc.allowPrivilegeEscalation ?? false, capabilities: { ...caps, drop: caps.drop ?? ['ALL'] } };
      return { ...c, securityContext: hardened };
    });
  }
  return spec;
}

/** "a: why; b: why" within a message's length limit, saying how many more were left out. */
export function describeViolations(violations: readonly Violation[], limit = 900): string {
  const parts: string[] = [];
  let length = 0;
  for (const [i, v] of violations.entries()) {
    const part = `${v.path} (${v.why})`;
    if (length + part.length > limit) {
      parts.push(`and ${String(violations.length - i)} more`);
      break;
    }
    parts.push(part);
    length += part.length + 2;
  }
  return parts.join('; ');
}
