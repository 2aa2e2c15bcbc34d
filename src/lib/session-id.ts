/** Session ids as the contract gives them: a UUID v4 in lower case (api/openapi.yaml, SessionId). */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** True when `id` can name a session at all; anything else is not worth asking the service about. */
export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}
