/**
 * A tooltip for the app bar's icon buttons that does not weigh on the first page: MUI's Tooltip (with
 * Popper) comes in its own chunk, loaded as soon as the bar has rendered; until then, or for good if that
 * chunk cannot be downloaded (the server went away just after the page), the button shows without its hint
 * (its accessible name is its `aria-label` either way).
 */
import { Suspense, type ReactElement } from 'react';
import { optionalLazy } from '../lib/optional-lazy';

interface HintTooltipProps {
  title: string;
  children: ReactElement;
}

const bare = ({ children }: HintTooltipProps) => children;
const Tooltip = optionalLazy<HintTooltipProps>(() => import('@mui/material/Tooltip'), bare);

export function HintTooltip({ title, children }: HintTooltipProps) {
  return (
    <Suspense fallback={children}>
      <Tooltip title={title}>{children}</Tooltip>
    </Suspense>
  );
}
