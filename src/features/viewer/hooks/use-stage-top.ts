import { useLayoutEffect, type RefObject } from 'react';

/**
 * Keeps `--stage-top` on the element: its distance from the top of the page, measured after each render (the
 * header above it may change) and on every resize, so that CSS can give it the height left below it on a short
 * screen (`SHORT_LANDSCAPE`) whatever the header above it takes. Set on the element itself: no render follows.
 */
export function useStageTop(ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () =>
      element.style.setProperty('--stage-top', `${element.getBoundingClientRect().top + window.scrollY}px`);
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  });
}
