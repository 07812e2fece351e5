// The pod sandbox image, made here: the static pause binary (pause.c) alone, as an OCI archive.
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { layerFromTree, writeOciArchive } from '../../../image/oci.ts';

/** Named after the build's cache key (the bin directory's parent), so a changed pause.c gets a new tag. */
export function pauseImageName(binDir: string): string {
  return `edgeshifu.local/pause:${basename(dirname(binDir)).replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 120)}`;
}

export async function writePauseImage(binDir: string, archive: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'edgeshifu-pause-'));
  try {
    await copyFile(join(binDir, 'pause'), join(root, 'pause'));
    const name = pauseImageName(binDir);
    await mkdir(dirname(archive), { recursive: true });
    await writeOciArchive(archive, { name, config: { Entrypoint: ['/pause'], User: '65535:65535' }, layers: [await layerFromTree(root, 'pause (static)')] });
    return name;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
