// npm run build (and the first step of npm start, the scripts and the benches): the TypeScript sources
// compiled to JavaScript under dist/, one file each (app/service.ts -> dist/app/service.js, with a
// source map), so the service runs without tsx. tsx compiles each module when it is loaded, with the
// esbuild option keepNames fixed on: every function created at run time gets a __name() call, an
// Object.defineProperty, which the copy engine and the API paid on each closure. This is the same
// esbuild without it; types are checked by `npm run typecheck`, not here (as under tsx).
//
// Only what changed is compiled again: a source newer than its output, and everything when esbuild,
// tsconfig.json or this file changed (dist/.build.json holds their stamp). Outputs whose source is gone
// are removed. Each output is written to a temporary file and renamed, so a process starting while
// another builds never loads half a file.
//
//   node scripts/build.js
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { transform } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
/** app/projectRoot.ts's COMPILED_DIR. */
const OUT = path.join(ROOT, 'dist');
/** tsconfig.json's include, less test/ (the specs run under tsx). */
const SOURCES = ['domain', 'store', 'projections', 'app', 'api', 'engine', 'scripts'];
const STAMP = path.join(OUT, '.build.json');

const sha = (text) => createHash('sha256').update(text).digest('hex');

/** What every output depends on besides its own source. */
const stampNow = () =>
  JSON.stringify({
    esbuild: JSON.parse(readFileSync(path.join(ROOT, 'node_modules/esbuild/package.json'), 'utf8')).version,
    tsconfig: sha(readFileSync(path.join(ROOT, 'tsconfig.json'))),
    build: sha(readFileSync(import.meta.filename)),
  });

/** Every .ts source under dir (relative to the root), node_modules left out. */
const sourcesUnder = (dir) =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(rel);
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });

/** Every file under dist/ (relative to it), but the stamp. */
const outputsUnder = (dir) =>
  readdirSync(path.join(OUT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return outputsUnder(rel);
    return entry.isFile() ? [rel] : [];
  });

const mtimeOf = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
};

const writeAtomically = (file, text) => {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
};

const main = async () => {
  const began = performance.now();
  const stamp = stampNow();
  let previous = null;
  try {
    previous = readFileSync(STAMP, 'utf8');
  } catch {
    // no build yet
  }
  const sources = SOURCES.flatMap(sourcesUnder);
  const outputOf = (source) => path.join(OUT, source.replace(/\.ts$/, '.js'));
  const stale = previous === stamp ? sources.filter((source) => mtimeOf(outputOf(source)) <= mtimeOf(path.join(ROOT, source))) : sources;
  const tsconfigRaw = readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8');
  const compile = async (source) => {
    const file = outputOf(source);
    const { code, map } = await transform(readFileSync(path.join(ROOT, source), 'utf8'), {
      loader: 'ts',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      tsconfigRaw,
      sourcefile: path.relative(path.dirname(file), path.join(ROOT, source)),
      sourcemap: 'external',
      sourcesContent: false,
    });
    writeAtomically(`${file}.map`, map);
    writeAtomically(file, `${code}//# sourceMappingURL=${path.basename(file)}.map\n`);
  };
  await Promise.all(stale.map(compile));
  // Outputs of deleted sources go too, so an import of a removed module fails here as it does under tsx
  // (another build's temporary files stay: it renames them in a moment).
  const expected = new Set(sources.flatMap((source) => [outputOf(source), `${outputOf(source)}.map`]));
  mkdirSync(OUT, { recursive: true });
  for (const output of outputsUnder('.')) {
    const file = path.join(OUT, output);
    if (file !== STAMP && !file.endsWith('.tmp') && !expected.has(file)) rmSync(file, { force: true });
  }
  // The event store benchmark's Emmett peer takes its packages from scripts/bench/peer/node_modules
  // (a package of its own: package.json's bench-peer-emmett); its compiled adapter finds them there too.
  const peerModules = path.join(OUT, 'scripts/bench/peer/node_modules');
  try {
    symlinkSync(path.relative(path.dirname(peerModules), path.join(ROOT, 'scripts/bench/peer/node_modules')), peerModules);
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  if (previous !== stamp) writeAtomically(STAMP, stamp);
  if (stale.length > 0) {
    process.stderr.write(`compiled ${stale.length} of ${sources.length} modules to dist/ in ${Math.round(performance.now() - began)} ms\n`);
  }
};

await main();
