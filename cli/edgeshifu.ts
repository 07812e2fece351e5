#!/usr/bin/env node
// `edgeshifu` (package.json "bin"): Node 24 runs this file as it is (type stripping), and tsx's
// loader then runs the CLI's TypeScript in this same process, so `npx edgeshifu` works right
// after `npm ci`, with no build step and no second process between the shell and the CLI.
import { register } from 'tsx/esm/api';

register();
const { runFromProcess } = await import('./main.ts');
await runFromProcess();
