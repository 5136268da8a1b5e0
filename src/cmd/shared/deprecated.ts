import type { DeprecationHeaders } from '../../api/client.js';
import { GET_PET_REMOVAL_DATE } from '../../api/contract.js';
import type { Session } from './session.js';

/**
 * The one line that says GET /pets/{petId} goes away, and when: the server's Sunset date when
 * it sent one, else the date the API announced. No replacement is named: `pets list --status`
 * filters by status, it cannot fetch an id. The command that called it is the one just typed,
 * so the line names only the operation: with `warning: ` it fits 80 columns.
 */
export async function warnDeprecated(session: Session, headers: DeprecationHeaders): Promise<void> {
  if (session.env.PETS_NO_DEPRECATION_WARNING === '1') return;
  const operation = 'GET /pets/{petId}';
  const sunset = sunsetDate(headers.sunset);
  await session.terminal.warn(
    sunset
      ? `${operation} is deprecated; the server removes it on ${sunset}.`
      : `${operation} is deprecated and goes away on ${GET_PET_REMOVAL_DATE}.`,
    { code: 'deprecated', operation, sunset: sunset ?? GET_PET_REMOVAL_DATE },
  );
}

/** A Sunset header (an HTTP date) as YYYY-MM-DD, or undefined when it is not a date. */
function sunsetDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().slice(0, 10);
}
