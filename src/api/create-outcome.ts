import { InterruptedError, NetworkError, PetsError, ServerError } from '../core/errors.js';
import { shellWord } from '../core/terminal-text.js';
import type { NewPet } from './contract.js';

/**
 * Whether a failed create may still have stored the pet: the request may have reached the
 * server and no clear refusal came back (a reset or timeout after sending, a 5xx, an
 * unreadable 201, Ctrl-C after sending).
 */
export function mayHaveCreated(error: unknown): boolean {
  if (error instanceof NetworkError) return error.requestMayHaveArrived;
  if (error instanceof InterruptedError) return error.requestSent;
  return error instanceof ServerError;
}

/** The check to run, on the profile the create went to (the active one may be another). */
function checkHint(pet: NewPet, profile: string): string {
  const list = `pets --profile ${shellWord(profile)} list --limit 100`;
  return `Check with \`${list}\` whether "${pet.name}" is there before adding it again.`;
}

/**
 * A failure that came back from the server or the network, its message ending with "the pet
 * may have been created" when that is so: for `add` and each record of a batch alike.
 * An interrupt is left alone: a batch reports it as a whole (see `withAddOutcome`).
 */
export function withCreateOutcome(error: unknown, pet: NewPet, profile: string): unknown {
  if (error instanceof PetsError && !(error instanceof InterruptedError) && mayHaveCreated(error)) {
    return error.withOutcome('the pet may have been created', checkHint(pet, profile));
  }
  return error;
}

/**
 * The error of a single `add`, which always says which case it is: the pet may have been
 * created (said by the client, or here for Ctrl-C after sending), or it was not.
 */
export function withAddOutcome(error: unknown, pet: NewPet, profile: string): unknown {
  if (!(error instanceof PetsError)) return error;
  if (error instanceof InterruptedError) {
    return error.requestSent
      ? error.withOutcome(
          'the request had been sent: the pet may have been created',
          checkHint(pet, profile),
        )
      : error.withOutcome('nothing was sent: the pet was not created');
  }
  if (mayHaveCreated(error)) return error;
  return error.withOutcome(
    error instanceof NetworkError
      ? 'nothing reached the server: the pet was not created'
      : 'the pet was not created',
  );
}

/**
 * The error of a request that may change data (`pets api -X PUT`, say), saying whether it may
 * have taken effect, so that nobody sends it again blindly. Answers from the server are
 * told by their status; this is for a request cut off on its way.
 */
export function withWriteOutcome(error: unknown): unknown {
  if (error instanceof InterruptedError) {
    return error.withOutcome(
      error.requestSent
        ? 'the request had been sent: it may have taken effect'
        : 'nothing was sent',
    );
  }
  if (!(error instanceof NetworkError)) return error;
  return error.requestMayHaveArrived
    ? error.withOutcome(
        'the request may have reached the server and taken effect',
        'Check what the server holds before sending it again.',
      )
    : error.withOutcome('nothing reached the server');
}
