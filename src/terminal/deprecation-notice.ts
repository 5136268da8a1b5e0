import type { DeprecationHeaders } from '../api/client.js';

/** The notice that a deprecated operation goes away: its sentence and, for --json, its facts. */
export interface DeprecationNotice {
  code: 'deprecated';
  message: string;
  /** The request, as in `GET /pets/{petId}`. */
  operation: string;
  /** The removal date, YYYY-MM-DD: the server's Sunset date when it sent one. */
  sunset: string;
}

/**
 * The one line that says a deprecated operation goes away, and when: the server's Sunset
 * date when it sent one, else the date the API announced. A replacement is named only where
 * there is one that does the same job. The command that called it is the one just typed, so
 * the line names only the operation: with `warning: ` it fits 80 columns.
 */
export function deprecationNotice(notice: {
  /** The request, as in `GET /pets/{petId}`. */
  operation: string;
  headers: DeprecationHeaders;
  announcedRemoval: string;
  replacement?: string;
}): DeprecationNotice {
  const sunset = sunsetDate(notice.headers.sunset);
  const instead = notice.replacement ? `; use ${notice.replacement} instead.` : '.';
  return {
    code: 'deprecated',
    message: sunset
      ? `${notice.operation} is deprecated; the server removes it on ${sunset}${instead}`
      : `${notice.operation} is deprecated and goes away on ${notice.announcedRemoval}${instead}`,
    operation: notice.operation,
    sunset: sunset ?? notice.announcedRemoval,
  };
}

/** A Sunset header (an HTTP date) as YYYY-MM-DD, or undefined when it is not a date. */
function sunsetDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().slice(0, 10);
}
