import { spawnSync } from 'node:child_process';

/**
 * The command that runs a program in a PID namespace of its own, as a container or some CI
 * runners do (`unshare -pf --mount-proc`), or undefined where the system refuses it (no
 * unshare, not root, a sandbox without user namespaces): the tests that need it then skip.
 */
// --kill-child: a signal to unshare reaches the program, as a container's stop would.
export const UNSHARE = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'];

export const unshareRefused: string | undefined = (() => {
  const tried = spawnSync(UNSHARE[0]!, [...UNSHARE.slice(1), 'true'], { encoding: 'utf8' });
  if (tried.error) return `unshare cannot run: ${tried.error.message}`;
  if (tried.status !== 0) return `unshare is refused here: ${tried.stderr.trim()}`;
  return undefined;
})();

if (unshareRefused) console.log(`skipping the PID namespace tests: ${unshareRefused}`);
