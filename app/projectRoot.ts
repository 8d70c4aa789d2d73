// Where the project's own files are, whether this code runs from its TypeScript sources (tsx: the specs)
// or compiled under dist/ (npm start, the scripts and the benches: scripts/build.js). A module that
// reads a file shipped with the code (data/, console/) or starts another of our scripts asks here, so
// no module counts `..` from its own place, which differs by one level between the two.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The directory compiled JavaScript goes to (scripts/build.js writes it; .gitignore lists it). */
export const COMPILED_DIR = 'dist';

/** The nearest directory above this module that holds package.json: the project's root. */
const rootAbove = (dir: string): string => {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, 'package.json'))) return at;
    if (path.dirname(at) === at) throw new Error(`no package.json above ${dir}`);
  }
};

export const PROJECT_ROOT = rootAbove(import.meta.dirname);

/** True when this process runs the compiled JavaScript (this module is dist/app/projectRoot.js). */
export const RUNS_COMPILED = import.meta.filename.endsWith('.js');

/** A file shipped with the project, by its path from the root ('data/brokers/brokers.json'). */
export const projectFile = (...segments: string[]): string => path.join(PROJECT_ROOT, ...segments);

/** How node runs one of our scripts: the options before the file, and the file. */
export interface ScriptRun {
  readonly execArgv: string[];
  readonly file: string;
}

/**
 * How to run one of our scripts, named by its source path from the root ('scripts/start.ts'), the way
 * this process runs: its compiled JavaScript when this process is compiled, else the source under tsx.
 * A benchmark's service and workers so run like the benchmark. Source maps are on in both (tsx turns
 * them on), so a stack trace names the TypeScript lines.
 */
export const scriptRun = (script: string): ScriptRun =>
  RUNS_COMPILED
    ? { execArgv: ['--enable-source-maps'], file: path.join(PROJECT_ROOT, COMPILED_DIR, script.replace(/\.ts$/, '.js')) }
    : { execArgv: ['--import', 'tsx'], file: path.join(PROJECT_ROOT, script) };
