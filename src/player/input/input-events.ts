/** The JSON events the `input` data channel carries (CONTRACT 12), in stream pixel coordinates. */

/** One touch point. */
export interface TouchPoint {
  id: number;
  x: number;
  y: number;
}

/** Every event the player sends on `input`; each carries a sequence number that the application echoes. */
export type InputEvent =
  | { type: 'pointermove'; x: number; y: number; buttons: number }
  | { type: 'pointerdown' | 'pointerup'; x: number; y: number; button: number }
  | { type: 'wheel'; x: number; y: number; deltaX: number; deltaY: number }
  | { type: 'keydown' | 'keyup'; key: string; code: string }
  | { type: 'touchstart' | 'touchmove' | 'touchend'; touches: TouchPoint[] }
  | { type: 'resize'; width: number; height: number };
