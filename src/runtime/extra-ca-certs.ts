import type { X509Certificate } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cacheDir } from './compile-cache.js';
import { basename, dirname, join } from 'node:path';
import { fdOutput } from './fd-output.js';

/** Set in a restarted run, to the file NODE_EXTRA_CA_CERTS named before: see restart below. */
const ORIGINAL = 'PETS_EXTRA_CA_ORIGINAL';
const COPY_PREFIX = 'pets-ca-';

export interface ExtraCaScan {
  /** How many certificates Node adds. */
  kept: number;
  /** The file's start that holds them: as the user wrote it (a TRUSTED CERTIFICATE's settings too). */
  loadable: Buffer;
  /** OpenSSL's error that stops Node's load (and makes it print its line), if any. */
  failure?: string;
}

/** A line that begins a certificate block OpenSSL's PEM_read_bio_X509_AUX takes. */
const CERT_BEGIN = /^-----BEGIN (?:X509 |TRUSTED )?CERTIFICATE-----[ \t\r]*$/gm;

/**
 * What Node makes of a NODE_EXTRA_CA_CERTS file's content, found without loading tls: Node reads
 * certificates with OpenSSL's PEM reader until the first error, keeps those read before it, and
 * prints its line unless the error is "no start line" (nothing more to read). `new
 * X509Certificate` runs the same reader on what follows the last certificate read (skipping
 * text and other PEM blocks, failing on a broken one), so each step is OpenSSL's own answer.
 * Undefined when a step cannot be placed in the file with certainty: then pets leaves the file to
 * Node. Checked against Node 22, 24 and 26 (test/e2e/node-warnings.test.ts).
 */
export function scanExtraCaCerts(
  content: Buffer,
  X509: typeof X509Certificate,
): ExtraCaScan | undefined {
  // One string for the whole file: a bundle of 150 CAs is read in one pass.
  const latin1 = content.toString('latin1');
  let kept = 0;
  let read = 0;
  for (;;) {
    const rest = content.subarray(read);
    const done = { kept, loadable: content.subarray(0, read) };
    // Node 22's reader fails on an empty buffer where OpenSSL finds no start line.
    if (rest.length === 0) return done;
    let cert: X509Certificate;
    try {
      cert = new X509(rest);
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      if (code === 'ERR_OSSL_PEM_NO_START_LINE' || readerStoppedQuietly(rest, code, X509)) {
        return done;
      }
      return code?.startsWith('ERR_OSSL_') ? { ...done, failure: message } : undefined;
    }
    const end = endOfFirstCertificate(latin1, read);
    // No PEM block read it (a DER file, which Node's reader does not take), or not this one.
    if (end === undefined || !sameCertificate(content.subarray(read, end), cert, X509)) {
      return undefined;
    }
    kept += 1;
    read = end;
  }
}

/**
 * Whether OpenSSL's PEM reader stopped with no error of its own (a block whose data is empty, as
 * when a blank line comes right before END): Node then keeps what came before and says nothing.
 * X509Certificate reports the first error, and when the PEM reader fails it tries DER: an error
 * of the DER attempt's alone shows that the reader had none. A first line the reader skips as
 * text, but on which DER fails otherwise, tells the two apart (Node 22, 24 and 26 alike).
 */
function readerStoppedQuietly(
  rest: Buffer,
  code: string | undefined,
  X509: typeof X509Certificate,
): boolean {
  try {
    new X509(Buffer.concat([Buffer.from('0\x84\xff\xff\xff\xff\n', 'latin1'), rest]));
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== code;
  }
}

/** Where the line after the first certificate block's END line from `from` on begins. */
function endOfFirstCertificate(latin1: string, from: number): number | undefined {
  CERT_BEGIN.lastIndex = from;
  const begin = CERT_BEGIN.exec(latin1);
  if (!begin) return undefined;
  const endLine = latin1.indexOf('\n-----END ', begin.index);
  if (endLine === -1) return undefined;
  const newline = latin1.indexOf('\n', endLine + 1);
  return newline === -1 ? latin1.length : newline + 1;
}

function sameCertificate(block: Buffer, cert: X509Certificate, X509: typeof X509Certificate) {
  try {
    return new X509(block).fingerprint256 === cert.fingerprint256;
  } catch {
    return false;
  }
}

/**
 * Under --json every stderr line is JSON, but Node writes `Warning: Ignoring extra certs from …`
 * itself, straight to fd 2, from the thread that loads the CAs once `tls` is loaded: no
 * listener sees it. So before tls loads, a JSON run checks the file NODE_EXTRA_CA_CERTS names.
 * When Node would print its line, pets says so as a JSON warning and starts again in this same
 * process (execve: same pid, stdio and signals), without the variable if the file does not open,
 * else with a private copy of the certificates Node would have kept: Node then trusts exactly
 * what it would have trusted, and prints nothing. A restarted run removes the copy (see
 * settleExtraCaCopy). Returns only when there is nothing to do, or no restart.
 */
export async function restartForExtraCaCerts(argv: readonly string[]): Promise<void> {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return;
  if (process.env[ORIGINAL] !== undefined) return settleExtraCaCopy(file);
  // Windows has no execve: Node's line stays there.
  if (!process.execve || process.platform === 'win32') return;
  try {
    closeSync(openSync(file, 'r'));
  } catch (error) {
    // Node trusts none of a file it cannot open.
    const reason = (error as NodeJS.ErrnoException).code ?? 'an error';
    const message =
      `NODE_EXTRA_CA_CERTS names ${file}, which cannot be opened (${reason}), so no extra CA ` +
      'is trusted. Fix the path, or unset NODE_EXTRA_CA_CERTS.';
    await warn('extra_ca_unreadable', message, { file, reason });
    const { NODE_EXTRA_CA_CERTS: _, ...env } = process.env;
    return execve(argv, env);
  }
  const clean = cleanEntry(file);
  if (clean?.seen) return;
  let scan: ExtraCaScan | undefined;
  try {
    // node:crypto is loaded here only: a run without the variable pays for none of this.
    scan = scanExtraCaCerts(readFileSync(file), (await import('node:crypto')).X509Certificate);
  } catch {
    // Opens but does not read (a folder): left to Node.
  }
  if (scan?.failure === undefined) return rememberClean(clean);
  const message =
    `Node cannot load all of NODE_EXTRA_CA_CERTS ${file} (${scan.failure}): only the ` +
    `${scan.kept} certificate(s) before the fault are trusted. Fix the file, or unset ` +
    'NODE_EXTRA_CA_CERTS.';
  await warn('extra_ca_partly_unreadable', message, {
    file,
    reason: scan.failure,
    kept: scan.kept,
  });
  // The certificates in a file only this user can read, in a folder of its own.
  const copy = join(mkdtempSync(join((await import('node:os')).tmpdir(), COPY_PREFIX)), 'ca.pem');
  writeFileSync(copy, scan.loadable, { mode: 0o600, flag: 'wx' });
  await execve(argv, { ...process.env, NODE_EXTRA_CA_CERTS: copy, [ORIGINAL]: file });
  // Not restarted: the copy goes, and the run goes on with Node's own line.
  rmSync(dirname(copy), { recursive: true, force: true });
}

// Scanning the system's bundle (150 CAs) costs a JSON run 13-80 ms, and NODE_EXTRA_CA_CERTS
// names the same unchanged file run after run: a file found clean is known by its identity,
// size and times, in the cache folder. Whoever could plant an entry gains only Node's own line.
const CLEAN_ENTRY = 'extra-ca-clean';

/** The entry that remembers a clean file, what it holds for `file` as it is now, and whether it does. */
function cleanEntry(file: string): { path: string; known: string; seen: boolean } | undefined {
  const folder = cacheDir(process.env);
  if (!folder) return undefined;
  const path = join(folder, CLEAN_ENTRY);
  try {
    const { dev, ino, size, mtimeMs, ctimeMs } = statSync(file);
    const known = `${file}\t${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}\n`;
    return { path, known, seen: existsSync(path) && readFileSync(path, 'utf8') === known };
  } catch {
    return undefined;
  }
}

function rememberClean(clean: { path: string; known: string } | undefined): void {
  if (!clean) return;
  try {
    mkdirSync(dirname(clean.path), { recursive: true, mode: 0o700 });
    writeFileSync(clean.path, clean.known, { mode: 0o600 });
  } catch {
    // No cache folder (read-only home, say): the next run scans again.
  }
}

async function warn(code: string, message: string, fields: Record<string, unknown>) {
  const { StderrNotices } = await import('./cli-stack.js');
  const stderr = fdOutput(2, () => {});
  new StderrNotices(stderr, true).write('warning', { code, message, ...fields });
}

async function execve(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { isSea } = await import('node:sea');
  // The executable holds its script and its Node options; node needs both said again.
  const args = isSea()
    ? [process.execPath, ...argv.slice(2)]
    : [process.execPath, ...process.execArgv, ...argv.slice(1)];
  try {
    process.execve!(process.execPath, args, env);
  } catch {
    // Not restarted (no such file any more, say): the run goes on, and Node says its line too.
  }
}

/**
 * In the run restarted with a private copy: Node reads NODE_EXTRA_CA_CERTS once, when its CA
 * store is first made. Asking tls for the extra certificates makes it now, so the copy can go
 * at once (removed before that, Node would find no file: its line again, and no extra CA).
 * Node's children (a pager, a sandbox) get the variable as the user set it.
 */
async function settleExtraCaCopy(copy: string): Promise<void> {
  process.env.NODE_EXTRA_CA_CERTS = process.env[ORIGINAL];
  delete process.env[ORIGINAL];
  const folder = dirname(copy);
  // Only a copy pets made: the variable alone must not make pets delete a file.
  const { tmpdir } = await import('node:os');
  if (dirname(folder) !== tmpdir() || !basename(folder).startsWith(COPY_PREFIX)) return;
  const { getCACertificates } = await import('node:tls');
  getCACertificates('extra');
  rmSync(folder, { recursive: true, force: true });
}
