// `npm run build:page [-- <outDir>]`: writes the edgeMap page to dist/edgemap-page (or <outDir>).
import { buildEdgeMapPage } from '../build-page.ts';
import { defaultPageDir } from '../http/page-files.ts';
import { errorMessage } from '../../shared/errors.ts';

const outDir = process.argv[2] ?? defaultPageDir();
try {
  const built = await buildEdgeMapPage(outDir);
  for (const [file, bytes] of Object.entries(built.files)) console.log(`${built.outDir}/${file}\t${bytes} bytes`);
} catch (err) {
  console.error(`edgeMap page build failed: ${errorMessage(err)}`);
  process.exitCode = 1;
}
