/**
 * The pointer of someone else in control, drawn over the picture as a small arrow with their name, so that
 * everyone watching sees what they point at. It comes in stream pixels (`pointer` events) and is put where the
 * video element shows that pixel, by the inverse of the player's own mapping of input. Hidden when nobody else
 * is in control, and after POINTER_IDLE_MS without a move, as a still mouse is forgotten.
 */
import Box from '@mui/material/Box';
import { useEffect, useReducer, useState, useSyncExternalStore, type RefObject } from 'react';
import { toPagePoint, type PointerPayload } from '../../../player';
import { peopleRoles, type People } from '../hooks/use-people';

/** How long another's pointer stays up without moving. */
export const POINTER_IDLE_MS = 5000;

/** Renders again when the element's size or the stream's changes, which moves the picture under a still pointer. */
function useRedrawOnResize(video: RefObject<HTMLVideoElement | null>) {
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const element = video.current;
    if (!element) return undefined;
    // `resize`: the stream's size changed (the one in control resized their window).
    element.addEventListener('resize', redraw);
    const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(() => redraw());
    observer?.observe(element);
    return () => {
      element.removeEventListener('resize', redraw);
      observer?.disconnect();
    };
  }, [video]);
}

export function RemotePointer(props: { people: People; video: RefObject<HTMLVideoElement | null> }) {
  const { payload, link } = props.people;
  const pointer = useSyncExternalStore(link.subscribePointer, link.pointer);
  // The position that has not moved for POINTER_IDLE_MS; each move is a new one.
  const [idle, setIdle] = useState<PointerPayload | null>(null);
  useEffect(() => {
    if (!pointer) return undefined;
    const timer = setTimeout(() => setIdle(pointer), POINTER_IDLE_MS);
    return () => clearTimeout(timer);
  }, [pointer]);
  useRedrawOnResize(props.video);
  const video = props.video.current;
  const controller = payload && peopleRoles(payload).controller;
  if (!video || !pointer || pointer === idle || !controller || controller.id === payload.you) return null;
  const at = toPagePoint(
    pointer,
    { left: video.offsetLeft, top: video.offsetTop, width: video.clientWidth, height: video.clientHeight },
    { width: video.videoWidth, height: video.videoHeight },
  );
  if (!at) return null;
  return (
    <Box
      role="img"
      aria-label={`${controller.name}’s pointer`}
      // The arrow's tip, one pixel into its drawing, on the point.
      style={{ left: at.x - 1, top: at.y - 1 }}
      sx={{ position: 'absolute', pointerEvents: 'none', zIndex: 2, color: 'secondary.main' }}
    >
      <svg width="16" height="20" viewBox="0 0 16 20" aria-hidden style={{ display: 'block' }}>
        <path
          d="M1 1 L1 16 L5 12.5 L8 19 L10.5 18 L7.5 11.5 L12.5 11.5 Z"
          fill="currentColor"
          stroke="white"
          strokeWidth="1.2"
          strokeLinejoin="round"
        />
      </svg>
      <Box
        component="span"
        aria-hidden
        sx={{
          position: 'absolute',
          left: 14,
          top: 16,
          px: 0.75,
          borderRadius: 1,
          bgcolor: 'secondary.main',
          color: 'secondary.contrastText',
          fontSize: 12,
          lineHeight: '18px',
          whiteSpace: 'nowrap',
        }}
      >
        {controller.name}
      </Box>
    </Box>
  );
}
