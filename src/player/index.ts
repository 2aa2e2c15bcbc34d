/**
 * The player's public surface, and the one module of src/player that code outside it imports (ESLint keeps
 * it so). The player is plain TypeScript over the browser's WebRTC: it knows nothing of React, MUI or the
 * portal, which meets it in the viewer page.
 */
export { Player } from './player';
/** Its options, states and events. */
export type * from './player-types';
export type { KeyboardCapture } from './input/input-controller';
export type { StatsSample } from './stats/stats-sample';
export type { AppMessage } from './data-channels/app-messages';
export type { PeoplePayload, Person, PersonRole, PointerPayload } from './people/people-state';
/** Where a stream pixel shows on the page: the inverse of the input's mapping, for drawing another's pointer. */
export { toPagePoint } from './input/coordinate-mapping';
export type { SignalingTransport } from './signaling/signaling-transport';
export type { DoorOptions, SignalingMode } from './signaling/signaling-path';
export type { ReconnectOptions } from './reconnect/reconnect-policy';
/** The one reading of a session's `routes`, which the portal's API client uses too. */
export {
  normaliseRoutes,
  parseRoutes,
  RoutesError,
  type RouteLike,
  type StreamEndpoint,
} from './routes/parse-routes';
