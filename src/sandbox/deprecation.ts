import { GET_PET_REMOVAL_DATE } from '../api/contract.js';

/** Headers on every response of the deprecated GET /pets/{petId} (RFC 8594, RFC 9745). */
export function getPetDeprecationHeaders(): Record<string, string> {
  return {
    deprecation: 'true',
    sunset: new Date(`${GET_PET_REMOVAL_DATE}T00:00:00Z`).toUTCString(),
    link: '</v1/pets>; rel="successor-version"',
  };
}
