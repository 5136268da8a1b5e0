import { closeSync, openSync } from 'node:fs';
import { fdOutput } from './fd-output.js';

/**
 * Why Node cannot open the file NODE_EXTRA_CA_CERTS names (ENOENT, EACCES, …), or undefined
 * when it is unset or opens. Only a file that does not open is Node's certain failure: it then
 * trusts none of it. A file that opens but holds a broken certificate gets the certificates
 * before it added, so only Node itself can load it.
 */
export function extraCaCertsFailure(env: NodeJS.ProcessEnv): string | undefined {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return undefined;
  try {
    closeSync(openSync(file, 'r'));
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'an error';
  }
}

/**
 * Under --json every stderr line is JSON, but Node writes `Warning: Ignoring extra certs from …`
 * itself, straight to fd 2, from the thread that loads the CAs once `tls` is loaded: no
 * listener sees it. When NODE_EXTRA_CA_CERTS names a file that does not open, pets says so as a
 * JSON warning and starts again in this same process (execve: same pid, stdio and signals),
 * without the variable: Node then trusts exactly what it would have trusted, and prints nothing.
 * Returns only when there is nothing to do, or no restart.
 */
export async function restartWithoutUnopenableExtraCaCerts(argv: readonly string[]): Promise<void> {
  const reason = extraCaCertsFailure(process.env);
  // Windows has no execve: Node's line stays there.
  if (reason === undefined || !process.execve || process.platform === 'win32') return;
  const file = process.env.NODE_EXTRA_CA_CERTS as string;
  const [{ StderrNotices }, { isSea }] = await Promise.all([
    import('./cli-stack.js'),
    import('node:sea'),
  ]);
  new StderrNotices(
    fdOutput(2, () => {}),
    true,
  ).write('warning', {
    code: 'extra_ca_unreadable',
    message:
      `NODE_EXTRA_CA_CERTS names ${file}, which cannot be opened (${reason}), so no extra CA ` +
      'is trusted. Fix the path, or unset NODE_EXTRA_CA_CERTS.',
    file,
    reason,
  });
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  // The executable holds its script and its Node options; node needs both said again.
  const args = isSea()
    ? [process.execPath, ...argv.slice(2)]
    : [process.execPath, ...process.execArgv, ...argv.slice(1)];
  try {
    process.execve(process.execPath, args, env);
  } catch {
    // Not restarted (no such file any more, say): the run goes on, and Node says its line too.
  }
}
