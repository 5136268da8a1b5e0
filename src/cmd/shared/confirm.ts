import { UsageError } from '../../core/errors.js';
import type { Session } from './session.js';

/**
 * What touches a protected profile needs a person to type the profile's name, or --yes where
 * nobody can be asked (Session.whyNoPrompt, or stdin busy with data).
 */
export async function confirmProtectedProfile(
  session: Session,
  ask: {
    profile: string;
    /** The question before "Type its name to go on". */
    question: string;
    /** What needs --yes, as in `a batch into it`. */
    action: string;
    /** What was left undone when refused, as in `nothing was sent`. */
    nothingDone: string;
    yes: boolean;
    stdinBusy?: boolean;
  },
): Promise<void> {
  if (ask.yes) return;
  const whyNot = ask.stdinBusy ? 'stdin carries data' : session.terminal.whyNoPrompt;
  if (whyNot !== undefined) {
    throw new UsageError(`profile "${ask.profile}" is protected: ${ask.action} needs --yes here`, {
      hint: `Nobody can be asked to confirm (${whyNot}); ${ask.nothingDone}.`,
    });
  }
  const confirmed = await session.terminal.prompts.confirmName({
    message: `${ask.question} Type its name to go on:`,
    name: ask.profile,
  });
  if (!confirmed) {
    throw new UsageError(`that is not the profile name; ${ask.nothingDone}`);
  }
}
