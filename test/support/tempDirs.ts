// Temporary folders of a test run: made under the system's temporary folder and removed after the last suite,
// so a spec may restart a service on the same folder and nothing is left behind when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made = new Set<string>();

/** A new empty folder named `prefix…`, removed by the root `afterAll` hook (removeTempDirs). */
export const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
};

/** Removes every folder tempDir made in this run. */
export const removeTempDirs = (): void => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
};
