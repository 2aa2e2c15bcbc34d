/**
 * A tooltip for the app bar's icon buttons that does not weigh on the first page: MUI's Tooltip (with
 * Popper) comes in its own chunk, loaded as soon as the bar has rendered; until then the button shows
 * without its hint (its accessible name is its `aria-label` either way).
 */
import { lazy, Suspense, type ReactElement } from 'react';

const Tooltip = lazy(() => import('@mui/material/Tooltip'));

export function HintTooltip({ title, children }: { title: string; children: ReactElement }) {
  return (
    <Suspense fallback={children}>
      <Tooltip title={title}>{children}</Tooltip>
    </Suspense>
  );
}
