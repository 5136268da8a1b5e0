import { UsageError } from '../../core/errors.js';
import type { Session } from './session.js';

/**
 * What touches a protected profile shows its badge, then needs a person to type the profile's
 * name, or --yes where nobody can be asked (Session.whyNoPrompt, or stdin busy with data).
 * A profile that is not protected passes.
 */
export async function confirmProtectedProfile(
  session: Session,
  target: { profile: string; host?: string; protected: boolean },
  ask: {
    /** What is about to be done, before "protected profile …?", as in `Import into`. */
    doing: string;
    /** What needs --yes, as in `a batch into it`. */
    action: string;
    /** What was left undone when refused, as in `nothing was sent`. */
    nothingDone: string;
    yes: boolean;
    stdinBusy?: boolean;
  },
): Promise<void> {
  if (!target.protected) return;
  await session.terminal.protectedBadge(target);
  if (ask.yes) return;
  const { profile, host } = target;
  const whyNot = ask.stdinBusy ? 'stdin carries data' : session.terminal.whyNoPrompt;
  if (whyNot !== undefined) {
    throw new UsageError(`profile "${profile}" is protected: ${ask.action} needs --yes here`, {
      hint: `Nobody can be asked to confirm (${whyNot}); ${ask.nothingDone}.`,
    });
  }
  const typed = await session.terminal.prompts.text({
    message: `${ask.doing} protected profile "${profile}"${host ? ` (${host})` : ''}? Type its name to go on:`,
  });
  // The name, spaces around it aside.
  if (typed.trim() !== profile) {
    throw new UsageError(`that is not the profile name; ${ask.nothingDone}`);
  }
}
