// The CLI's kubeconfig, read as kubectl reads it: every file of $KUBECONFIG merged, the first file
// to name a cluster, user or context winning and a missing file skipped; the current context from
// the first file that sets one, or --context; relative paths and `tokenFile` read from each file's
// folder; a proxy from the environment where the kubeconfig names none (cli/proxy-env.ts). Only
// YAML here: client-node, which runs exec plugins and auth providers, loads at the first request
// (cli/kube-request.ts), so `--help`, `up` and `down` start without it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { EdgeshifuError, errorMessage } from '../shared/errors.ts';
import { proxyFromEnvironment } from './proxy-env.ts';

type Fields = Record<string, unknown>;
interface Named { readonly name: string; readonly [field: string]: unknown }

/** One kubeconfig document, merged from the files, with the context chosen. */
export interface KubeconfigDocument {
  readonly apiVersion: 'v1';
  readonly kind: 'Config';
  readonly 'current-context': string;
  readonly clusters: readonly Named[];
  readonly users: readonly Named[];
  readonly contexts: readonly Named[];
}

export interface LoadedKubeconfig {
  readonly document: KubeconfigDocument;
  readonly context: string;
  readonly server: string;
  /** The files read, in order (a missing $KUBECONFIG entry is not among them). */
  readonly files: readonly string[];
  /** Set when the connection goes through a proxy (kubeconfig `proxy-url` or the environment). */
  readonly proxy: string | undefined;
}

const PATH_FIELDS = { cluster: ['certificate-authority'], user: ['client-certificate', 'client-key'] } as const;

function readDocument(file: string): Fields {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new EdgeshifuError('invalid', `cannot read kubeconfig ${file}: ${errorMessage(err)}`);
  }
  try {
    const doc = parse(text) as unknown;
    return typeof doc === 'object' && doc !== null ? doc as Fields : {};
  } catch (err) {
    throw new EdgeshifuError('invalid', `kubeconfig ${file} is not YAML: ${errorMessage(err)}`);
  }
}

function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null ? value as Fields : {};
}

function absolute(file: string, path: string): string {
  return isAbsolute(path) ? path : join(dirname(file), path);
}

/** kubectl's `tokenFile` (client-node reads none): read now, relative to the kubeconfig's folder. */
function readTokenFile(file: string, name: string, user: Fields): Fields {
  if (typeof user.tokenFile !== 'string' || typeof user.token === 'string') return user;
  try {
    return { ...user, token: readFileSync(absolute(file, user.tokenFile), 'utf8').trim() };
  } catch (err) {
    throw new EdgeshifuError('invalid', `kubeconfig ${file}: user "${name}": cannot read tokenFile ${user.tokenFile} (${errorMessage(err)})`);
  }
}

/** The named entries of `list` (clusters, users, contexts) with their paths made absolute. */
function entries(file: string, doc: Fields, list: 'clusters' | 'users' | 'contexts'): Named[] {
  const items = Array.isArray(doc[list]) ? doc[list] as unknown[] : [];
  const field = list === 'clusters' ? 'cluster' : list === 'users' ? 'user' : 'context';
  return items.map(fieldsOf).filter((e): e is Fields & { name: string } => typeof e.name === 'string' && e.name !== '').map((entry) => {
    let inner = fieldsOf(entry[field]);
    for (const key of field === 'context' ? [] : PATH_FIELDS[field]) {
      const path = inner[key];
      if (typeof path === 'string' && path !== '') inner = { ...inner, [key]: absolute(file, path) };
    }
    if (field === 'user') inner = readTokenFile(file, entry.name, inner);
    return { name: entry.name, [field]: inner };
  });
}

function firstByName(lists: readonly (readonly Named[])[]): Named[] {
  const seen = new Map<string, Named>();
  for (const list of lists) for (const item of list) if (!seen.has(item.name)) seen.set(item.name, item);
  return [...seen.values()];
}

function describeContexts(contexts: readonly Named[]): string {
  return contexts.length === 0 ? 'it has no contexts' : `its contexts: ${contexts.map((c) => c.name).join(', ')}`;
}

/** --context, else the first current-context set; an 'invalid' error when it is not there. */
function chooseContext(docs: readonly Fields[], contexts: readonly Named[], context: string | undefined, where: string): Named {
  const current = context ?? docs.map((d) => d['current-context']).find((c): c is string => typeof c === 'string' && c !== '');
  if (current === undefined) throw new EdgeshifuError('invalid', `${where} sets no current-context: pass --context (${describeContexts(contexts)})`);
  const chosen = contexts.find((c) => c.name === current);
  if (chosen === undefined) {
    const flag = context === undefined ? 'its current-context' : '--context';
    throw new EdgeshifuError('invalid', `context "${current}" (${flag}) is not in ${where}: ${describeContexts(contexts)}`);
  }
  return chosen;
}

/**
 * Loads `files` (--kubeconfig: one; $KUBECONFIG: all, merged) with `context` (--context) or the
 * current one. Throws an 'invalid' EdgeshifuError naming the file or context to fix.
 */
export function loadKubeconfig(files: readonly string[], context: string | undefined, env: NodeJS.ProcessEnv): LoadedKubeconfig {
  const present = files.length === 1 ? files : files.filter((f) => existsSync(f));
  if (present.length === 0) throw new EdgeshifuError('invalid', `none of the kubeconfig files exists: ${files.join(', ')}`);
  const docs = present.map(readDocument);
  const merged = (list: 'clusters' | 'users' | 'contexts'): Named[] => firstByName(present.map((file, i) => entries(file, docs[i] ?? {}, list)));
  const [clusters, users, contexts] = [merged('clusters'), merged('users'), merged('contexts')];
  const where = present.length === 1 ? `kubeconfig ${present[0] ?? ''}` : `the kubeconfig merged from ${present.join(', ')}`;
  const chosen = chooseContext(docs, contexts, context, where);
  const { cluster: clusterName, user: userName } = fieldsOf(chosen.context);
  const cluster = fieldsOf(clusters.find((c) => c.name === clusterName)?.cluster);
  if (typeof cluster.server !== 'string' || cluster.server === '') {
    throw new EdgeshifuError('invalid', `context "${chosen.name}" of ${where} names cluster "${String(clusterName)}", which has no server there`);
  }
  if (typeof userName === 'string' && userName !== '' && !users.some((u) => u.name === userName)) {
    throw new EdgeshifuError('invalid', `context "${chosen.name}" of ${where} names user "${userName}", which is not there`);
  }
  const proxy = typeof cluster['proxy-url'] === 'string' ? cluster['proxy-url'] : proxyFromEnvironment(cluster.server, env);
  const withProxy = clusters.map((c) => (c.name === clusterName && proxy !== undefined ? { name: c.name, cluster: { ...cluster, 'proxy-url': proxy } } : c));
  const document: KubeconfigDocument = { apiVersion: 'v1', kind: 'Config', 'current-context': chosen.name, clusters: withProxy, users, contexts };
  return { document, context: chosen.name, server: cluster.server, files: present, proxy };
}
