import { isProtected, type Profile } from '../../config/store.js';
import { isLocalHttp } from '../../config/base-url.js';
import { UsageError } from '../../core/errors.js';
import { probeSandbox } from '../../sandbox/identity.js';
import type { Session } from '../shared/session.js';

/** Where a sandbox's address and key went, and what kept the wanted name, if anything. */
export interface SavedProfile {
  name: string;
  /** The base URL the wanted profile kept, when it was taken. */
  inUseBy?: string;
  /** Why it was taken: a sandbox still runs there, or it is no sandbox's profile. */
  keptFor?: 'running' | 'not_sandbox';
}

// Two sandboxes that start together may both find the same name free; the second to write
// finds the entry changed under the lock and looks again.
const ATTEMPTS = 5;

/**
 * Why profile `name` cannot take a sandbox, or undefined when it can: it is empty, or a sandbox's
 * that is gone. One with an address other than plain http to this machine, or a protected
 * one, is some server's (`--save-profile production`): never re-pointed, nor probed.
 */
async function whyKept(name: string, profile: Profile | undefined) {
  const { baseUrl, apiKey } = profile ?? {};
  if (baseUrl === undefined) return undefined;
  if (!isLocalHttp(baseUrl) || isProtected(name, profile)) return 'not_sandbox' as const;
  if (apiKey === undefined) return undefined;
  // A timeout ('unknown') counts as live: re-pointing a profile in use is the harm to avoid.
  return (await probeSandbox(baseUrl, apiKey)) === 'gone' ? undefined : ('running' as const);
}

/**
 * The profile `wanted`, `wanted-2`, `wanted-3`, …: the first that can take a sandbox, and why
 * `wanted` could not.
 */
async function firstFreeName(
  profiles: Readonly<Record<string, Profile>>,
  wanted: string,
  checkName: (name: string) => string,
): Promise<{ name: string; keptFor?: 'running' | 'not_sandbox' }> {
  const keptFor = await whyKept(wanted, profiles[wanted]);
  if (keptFor === undefined) return { name: wanted };
  for (let n = 2; ; n++) {
    const name = checkName(`${wanted}-${n}`);
    if ((await whyKept(name, profiles[name])) === undefined) return { name, keptFor };
  }
}

/**
 * Saves the sandbox's address and key as profile `wanted`, unless another sandbox that is still
 * running uses it: then as the first free `wanted-N`. A profile whose sandbox is gone is reused.
 */
export async function saveSandboxProfile(
  session: Session,
  wanted: string,
  sandbox: { baseUrl: string; key: string },
): Promise<SavedProfile> {
  const [{ checkProfileName }, { checkBaseUrl }] = await Promise.all([
    import('../../config/store.js'),
    import('../../config/base-url.js'),
  ]);
  checkProfileName(wanted);
  const baseUrl = checkBaseUrl(sandbox.baseUrl, 'the sandbox address');
  const config = await session.config();
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const seen = config.read().profiles;
    const { name, keptFor } = await firstFreeName(seen, wanted, checkProfileName);
    const before = JSON.stringify(seen[name]);
    const saved = await config.update((data) => {
      if (JSON.stringify(data.profiles[name]) !== before) return false;
      data.profiles[name] = { baseUrl, apiKey: sandbox.key };
      return true;
    });
    if (saved) return keptFor ? { name, inUseBy: seen[wanted]?.baseUrl, keptFor } : { name };
  }
  throw new UsageError(
    `other pets processes kept changing the config; profile "${wanted}" was not saved`,
    { hint: 'Try again, or choose a name with --save-profile.' },
  );
}

/** Tells where the profile went; when the wanted name was taken, how to use this one. */
export function announceProfile(session: Session, saved: SavedProfile, wanted: string): void {
  const { name, inUseBy, keptFor } = saved;
  if (inUseBy === undefined) {
    session.terminal.notice(`Saved as profile "${name}". Try: pets --profile ${name} list`);
    return;
  }
  const kept =
    keptFor === 'not_sandbox'
      ? `points at ${inUseBy}, not at a sandbox`
      : `belongs to a sandbox still running at ${inUseBy}`;
  session.terminal.notice(
    `Profile "${wanted}" ${kept}, so this one is saved as profile "${name}". ` +
      `Try: pets --profile ${name} list, or make it the default with: pets profile use ${name}`,
    { code: 'profile_in_use', profile: name, inUse: wanted },
  );
}
