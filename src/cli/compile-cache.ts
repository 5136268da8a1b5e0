import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { cacheDir, type Env } from '../config/paths.js';

interface LoadingModule {
  exports: unknown;
}

type CommonJsWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: LoadingModule,
  filename: string,
  dirname: string,
) => unknown;

type Compile = (this: LoadingModule, content: string, filename: string) => unknown;

/**
 * Keeps V8's compiled code for the files pets loads from here on, so that later runs skip
 * compiling them: once the bundle is lean, compiling is the largest start-up cost left
 * (about 15 ms of `pets list`). Node 22 does this itself (module.enableCompileCache); on
 * Node 20 pets compiles its CommonJS files through vm.Script with cached data, as
 * v8-compile-cache did. NODE_DISABLE_COMPILE_CACHE turns both off, as it does in Node 22.
 *
 * V8 caches the functions a run has compiled, and `pets --help` and `pets list` compile
 * different ones of the same file, so each kind of run (`kind`, as "list") has entries of its
 * own: one shared entry would hold only what the first run needed.
 */
export function enableCompileCache(env: Env, kind: string): void {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  const dir = join(cacheDir(env), `compile-${process.version}-${process.arch}`);
  const native = (Module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (native) {
    native(dir);
    return;
  }
  const proto = Module.prototype as unknown as { _compile: Compile };
  const compile = proto._compile;
  const compiled: Array<{ path: string; script: Script }> = [];
  proto._compile = function compileWithCache(this: LoadingModule, content, filename) {
    let path: string;
    try {
      // V8 checks only a source's length, so the entry's name carries the file's mtime too.
      const { size, mtimeMs } = statSync(filename);
      const file = `${basename(filename)}-${pathHash(filename)}`;
      path = join(dir, `${file}-${size}-${Math.trunc(mtimeMs)}-${kind}`);
    } catch {
      return compile.call(this, content, filename);
    }
    const cachedData = readIfThere(path);
    const script = new Script(Module.wrap(content), { filename, cachedData });
    if (!cachedData || script.cachedDataRejected) compiled.push({ path, script });
    const wrapper = script.runInThisContext() as CommonJsWrapper;
    return wrapper.call(
      this.exports,
      this.exports,
      createRequire(filename),
      this,
      filename,
      dirname(filename),
    );
  };
  // Written at exit, when V8 has compiled every function the run used, not only the top level.
  process.once('exit', () => save(dir, compiled));
}

function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function save(dir: string, compiled: ReadonlyArray<{ path: string; script: Script }>): void {
  if (compiled.length === 0) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const { path, script } of compiled) {
      // By rename, so that a pets starting meanwhile reads a whole entry or none.
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
      renameSync(temp, path);
    }
    removeStale(dir, compiled);
  } catch {
    // A cache that cannot be written only makes the next run as slow as this one.
  }
}

/**
 * Tells apart files of one name in different places: two installs of pets share the cache,
 * and each must not take the other's entries for its own older build. (FNV-1a, 32 bits.)
 */
function pathHash(path: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

// An entry's name: the file (name and place), its size and mtime (its build), the run's kind.
const ENTRY = /^(.+\.js-[0-9a-f]{8})-(\d+-\d+)-/;

/** Entries for another build of a file just cached: left by an upgrade, never read again. */
function removeStale(dir: string, compiled: ReadonlyArray<{ path: string }>): void {
  const builds = new Map<string, string>();
  for (const { path } of compiled) {
    const [, file, build] = ENTRY.exec(basename(path)) ?? [];
    if (file && build) builds.set(file, build);
  }
  for (const name of readdirSync(dir)) {
    const [, file, build] = ENTRY.exec(name) ?? [];
    const current = file && builds.get(file);
    if (current && build !== current) rmSync(join(dir, name), { force: true });
  }
}
