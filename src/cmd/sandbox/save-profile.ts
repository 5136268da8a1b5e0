import type { Profile } from '../../config/store.js';
import { UsageError } from '../../core/errors.js';
import { probeSandbox } from '../../sandbox/identity.js';
import type { Session } from '../shared/session.js';

/** Where a sandbox's address and key went, and the live sandbox that kept the wanted name. */
export interface SavedProfile {
  name: string;
  /** The base URL of the sandbox still running under the wanted name, when it was taken. */
  inUseBy?: string;
}

// Two sandboxes that start together may both find the same name free; the second to write
// finds the entry changed under the lock and looks again.
const ATTEMPTS = 5;

/** The profile `wanted`, `wanted-2`, `wanted-3`, …: the first not held by a live sandbox. */
async function firstFreeName(
  profiles: Readonly<Record<string, Profile>>,
  wanted: string,
  checkName: (name: string) => string,
): Promise<string> {
  for (let n = 1; ; n++) {
    const name = checkName(n === 1 ? wanted : `${wanted}-${n}`);
    const { baseUrl, apiKey } = profiles[name] ?? {};
    if (baseUrl === undefined || apiKey === undefined) return name;
    // A timeout ('unknown') counts as live: re-pointing a profile in use is the harm to avoid.
    if ((await probeSandbox(baseUrl, apiKey)) === 'gone') return name;
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
    const name = await firstFreeName(seen, wanted, checkProfileName);
    const before = JSON.stringify(seen[name]);
    const saved = await config.update((data) => {
      if (JSON.stringify(data.profiles[name]) !== before) return false;
      data.profiles[name] = { baseUrl, apiKey: sandbox.key };
      return true;
    });
    if (saved) return name === wanted ? { name } : { name, inUseBy: seen[wanted]?.baseUrl };
  }
  throw new UsageError(
    `other pets processes kept changing the config; profile "${wanted}" was not saved`,
    { hint: 'Try again, or choose a name with --save-profile.' },
  );
}

/** Tells where the profile went; when the wanted name was taken, how to use this one. */
export function announceProfile(session: Session, saved: SavedProfile, wanted: string): void {
  const { name, inUseBy } = saved;
  if (inUseBy === undefined) {
    session.terminal.notice(`Saved as profile "${name}". Try: pets --profile ${name} list`);
    return;
  }
  session.terminal.notice(
    `Profile "${wanted}" belongs to a sandbox still running at ${inUseBy}, so this one is ` +
      `saved as profile "${name}". Try: pets --profile ${name} list, or make it the ` +
      `default with: pets profile use ${name}`,
    { code: 'profile_in_use', profile: name, inUse: wanted },
  );
}
