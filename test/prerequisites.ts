// First step of the test command (`npm test`): the Debian packages the tests use are installed
// (as root) or named with the command to run, before lint, typecheck or any test starts.
import { PrerequisitesMissing, ensurePrerequisites } from './support/prerequisites/install.ts';

try {
  await ensurePrerequisites();
} catch (err) {
  if (!(err instanceof PrerequisitesMissing)) throw err;
  console.error(`[setup] ${err.message}`);
  console.log('tests: 0 passed, 1 failed');
  process.exitCode = 1;
}
