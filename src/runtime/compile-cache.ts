import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { Script } from 'node:vm';
import type { Env } from '../config/paths.js';

// The build writes in a SHA-256 prefix of each file main.js may load (src/build/bundle.mjs):
// hashing them here would cost more than the cache saves. Run from source, there is none.
declare const __PETS_FILE_HASHES__: Readonly<Record<string, string>> | undefined;

type Compile = (this: { exports: unknown }, content: string, filename: string) => unknown;

/**
 * Keeps V8's compiled code for the files pets loads from here on, so that later runs skip
 * compiling them, which is most of what a lean bundle costs at start-up. pets compiles its
 * CommonJS files through vm.Script with cached data, as v8-compile-cache does, on every
 * Node: Node's own module.enableCompileCache() keeps only top-level code, so later runs
 * still compile the functions they call. NODE_DISABLE_COMPILE_CACHE turns it off, as it does Node's.
 *
 * Cached code runs as pets's own, so the cache is used only when nobody else can write it:
 * its folders and entries must be the user's, and writable by nobody else. V8 accepts cached
 * data made for any source of the same length, so an entry is named by its file's content.
 *
 * V8 caches the functions a run has compiled, and `pets --help` and `pets list` compile
 * different ones of the same file, so each kind of run (`kind`, as "list") has entries of its
 * own: one shared entry would hold only what the first run needed.
 */
export function enableCompileCache(env: Env, kind: string): void {
  const hashes = typeof __PETS_FILE_HASHES__ === 'object' ? __PETS_FILE_HASHES__ : undefined;
  if (env.NODE_DISABLE_COMPILE_CACHE || !hashes) return;
  const root = cacheDir(env);
  if (!root) return;
  const dir = join(root, `compile-${process.version}-${process.arch}`);
  if (!ownFolder(root) || !ownFolder(dir)) return;
  const proto = Module.prototype as unknown as { _compile: Compile };
  const compile = proto._compile;
  const compiled: Array<{ path: string; script: Script }> = [];
  proto._compile = function compileWithCache(content, filename) {
    const file = basename(filename);
    const contentHash = hashes[file];
    if (!contentHash) return compile.call(this, content, filename);
    const path = join(dir, `${file}-${pathHash(filename)}-${contentHash}-${kind}`);
    const cachedData = readOwnFile(path);
    const script = new Script(Module.wrap(content), { filename, cachedData });
    if (!cachedData || script.cachedDataRejected) compiled.push({ path, script });
    // Called as Node calls a module's wrapper: (exports, require, module, __filename, __dirname).
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown;
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

/**
 * $XDG_CACHE_HOME/pets, else ~/.cache/pets: what can be rebuilt. None when that is not
 * absolute (HOME empty, say): nothing is cached then, rather than where pets was run from.
 */
export function cacheDir(env: Env): string | undefined {
  const home = () => env.HOME ?? process.getBuiltinModule('node:os').homedir();
  const base = env.XDG_CACHE_HOME || join(home(), '.cache');
  return isAbsolute(base) ? join(base, 'pets') : undefined;
}

/** Owned by this user, and writable by nobody else: another user could plant code there. */
function ownedSafely(stats: Stats): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0;
}

/** The folder as a real folder of this user's, made 0700 if it was not there. */
function ownFolder(path: string): boolean {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    const stats = lstatSync(path);
    return stats.isDirectory() && ownedSafely(stats);
  } catch {
    return false;
  }
}

/** An entry's bytes, when it is a regular file (not a link) that only this user can write. */
function readOwnFile(path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stats = fstatSync(fd);
    return stats.isFile() && ownedSafely(stats) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function save(dir: string, compiled: ReadonlyArray<{ path: string; script: Script }>): void {
  if (compiled.length === 0) return;
  try {
    for (const { path, script } of compiled) {
      // By rename, so that a pets starting meanwhile reads a whole entry or none; the rename
      // also replaces an entry that was refused for its owner or mode.
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
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

// An entry's name: the file (name and place), its content's hash (its build), the run's kind.
const ENTRY = /^(.+\.js-[0-9a-f]{8})-([0-9a-f]{16})-/;

/** Entries for another build of a file just cached: left by an upgrade, never read again. */
function removeStale(dir: string, compiled: ReadonlyArray<{ path: string }>): void {
  const names = readdirSync(dir);
  for (const { path } of compiled) {
    const [, file, build] = ENTRY.exec(basename(path))!;
    for (const name of names) {
      const stale = name.startsWith(`${file}-`) && !name.startsWith(`${file}-${build}-`);
      if (stale) rmSync(join(dir, name), { force: true });
    }
  }
}
