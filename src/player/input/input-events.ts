/**
 * The JSON events the `input` data channel carries (CONTRACT 12), in stream pixel coordinates: defined once,
 * for the player and the applications, in protocol/data-channels.ts. The player numbers each as it sends it.
 */
export type { InputEvent, TouchPoint } from '../../../protocol/data-channels';
