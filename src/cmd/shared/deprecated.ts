import type { DeprecationHeaders } from '../../api/client.js';
import { GET_PET_REMOVAL_DATE } from '../../api/contract.js';
import { deprecationNotice } from '../../terminal/deprecation-notice.js';
import type { Session } from './session.js';

/** The notice that GET /pets/{petId} is deprecated. */
export async function warnDeprecated(session: Session, headers: DeprecationHeaders): Promise<void> {
  if (session.env.PETS_NO_DEPRECATION_WARNING === '1') return;
  // No replacement is named: `pets list --status` filters by status, it cannot fetch an id.
  const { message, ...fields } = deprecationNotice({
    operation: 'GET /pets/{petId}',
    headers,
    announcedRemoval: GET_PET_REMOVAL_DATE,
  });
  await session.terminal.warn(message, fields);
}
