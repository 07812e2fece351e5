// An OCI image layout (oci-layout, index.json, blobs/sha256/...) packed as one tar archive, the
// form `ctr images import` and `skopeo copy oci-archive:` read. Layers are gzipped tars made by
// GNU tar with fixed owners, order and times, so one tree always gives the same digests.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const run = promisify(execFile);
const gzipAsync = promisify(gzip);

export const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;
/** The annotation containerd's importer names the image by. */
export const CONTAINERD_NAME = 'io.containerd.image.name';

export interface Descriptor { readonly mediaType: string; readonly digest: string; readonly size: number; readonly annotations?: Record<string, string> }

export interface ImageConfig {
  readonly User?: string;
  readonly Env?: string[];
  readonly Entrypoint?: string[];
  readonly Cmd?: string[];
  readonly WorkingDir?: string;
  readonly ExposedPorts?: Record<string, object>;
}

export interface Layer { readonly descriptor: Descriptor; readonly diffId: string; readonly blob: Buffer; readonly comment: string }

const EPOCH = '1970-01-01T00:00:00Z';
const sha256 = (data: Buffer | string): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** A gzipped tar of everything under `root`, owned by 0:0, sorted, with the epoch as mtime. */
export async function layerFromTree(root: string, comment: string): Promise<Layer> {
  const { stdout } = await run('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '--format=gnu',
    '-C', root, '-cf', '-', '.'], { encoding: 'buffer', maxBuffer: 1 << 30 });
  const blob = await gzipAsync(stdout, { level: 6 });
  return { descriptor: { mediaType: MEDIA.layer, digest: sha256(blob), size: blob.length }, diffId: sha256(stdout), blob, comment };
}

function blobJson(value: unknown): { json: Buffer; digest: string } {
  const json = Buffer.from(JSON.stringify(value));
  return { json, digest: sha256(json) };
}

/** Writes the OCI archive of one amd64 Linux image named `name`; returns the archive's size in bytes. */
export async function writeOciArchive(out: string, init: { name: string; config: ImageConfig; layers: readonly Layer[] }): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-oci-'));
  try {
    const blobs = join(dir, 'blobs', 'sha256');
    await mkdir(blobs, { recursive: true });
    const put = async (digest: string, data: Buffer): Promise<void> => { await writeFile(join(blobs, digest.slice('sha256:'.length)), data); };
    for (const layer of init.layers) await put(layer.descriptor.digest, layer.blob);
    const config = blobJson({
      created: EPOCH, architecture: 'amd64', os: 'linux', config: init.config,
      rootfs: { type: 'layers', diff_ids: init.layers.map((l) => l.diffId) },
      history: init.layers.map((l) => ({ created: EPOCH, created_by: l.comment })),
    });
    await put(config.digest, config.json);
    const manifest = blobJson({
      schemaVersion: 2, mediaType: MEDIA.manifest,
      config: { mediaType: MEDIA.config, digest: config.digest, size: config.json.length },
      layers: init.layers.map((l) => l.descriptor),
    });
    await put(manifest.digest, manifest.json);
    const tag = init.name.slice(init.name.lastIndexOf(':') + 1);
    const index = { schemaVersion: 2, mediaType: MEDIA.index, manifests: [{
      mediaType: MEDIA.manifest, digest: manifest.digest, size: manifest.json.length,
      annotations: { [CONTAINERD_NAME]: init.name, 'org.opencontainers.image.ref.name': tag },
    }] };
    await writeFile(join(dir, 'index.json'), JSON.stringify(index));
    await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    await run('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-C', dir, '-cf', out, 'oci-layout', 'index.json', 'blobs']);
    return (await stat(out)).size;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface OpenedImage {
  readonly name: string | undefined;
  readonly config: ImageConfig;
  readonly layers: readonly Descriptor[];
  /** Extracts every layer in order into `root` (as a runtime would unpack the image). */
  unpack(root: string): Promise<void>;
  close(): Promise<void>;
}

/** Reads an OCI archive written by writeOciArchive (one image, one platform). */
export async function openOciArchive(archive: string): Promise<OpenedImage> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-oci-read-'));
  await run('tar', ['-C', dir, '-xf', archive]);
  const blob = (digest: string): string => join(dir, 'blobs', 'sha256', digest.slice('sha256:'.length));
  const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T;
  const index = await readJson<{ manifests: Descriptor[] }>(join(dir, 'index.json'));
  const top = index.manifests[0];
  if (top === undefined) throw new Error(`${archive} holds no image`);
  const manifest = await readJson<{ config: Descriptor; layers: Descriptor[] }>(blob(top.digest));
  const config = await readJson<{ config: ImageConfig }>(blob(manifest.config.digest));
  return {
    name: top.annotations?.[CONTAINERD_NAME],
    config: config.config,
    layers: manifest.layers,
    unpack: async (root) => {
      for (const layer of manifest.layers) await run('tar', ['-C', root, '--numeric-owner', '-xzf', blob(layer.digest)]);
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
