/**
 * The app bar's reminder of the person's sessions that are waiting or running, so that one left behind (Back
 * during a queued launch, a closed viewer) is not forgotten: a count, and a menu that opens each viewer.
 */
import LiveTvIcon from '@mui/icons-material/LiveTv';
import Badge from '@mui/material/Badge';
import IconButton from '@mui/material/IconButton';
import { useQuery } from '@tanstack/react-query';
import { Suspense, useState } from 'react';
import { useMatch } from 'react-router-dom';
import type { SessionRow } from '../lib/queries/list-sessions';
import { sessionQueries } from '../lib/queries/session-queries';
import { HintTooltip } from '../components/hint-tooltip';
import { callsWhenUnavailable, optionalLazy } from '../lib/optional-lazy';
import type { SessionsMenuProps } from './active-sessions-menu';

const MENU_ID = 'active-sessions-menu';

/** Should the menu's code not download, the button is closed again, and its next click loads it anew. */
const SessionsMenu = optionalLazy<SessionsMenuProps>(
  () => import('./active-sessions-menu'),
  callsWhenUnavailable('onClose'),
);

function isActive(row: SessionRow): boolean {
  const condition = row.session?.status.condition;
  return condition === 'pending' || condition === 'ready';
}

/** "2 sessions, 1 waiting". */
export function activeSummary(rows: readonly SessionRow[]): string {
  const waiting = rows.filter((r) => r.session?.status.condition === 'pending').length;
  const count = `${rows.length} session${rows.length === 1 ? '' : 's'}`;
  return waiting > 0 ? `${count}, ${waiting} waiting` : count;
}

/** Nothing while no session waits or runs, on a shared watch link (a guest's page), or where the list is refused. */
export function ActiveSessions() {
  const guest = useMatch('/watch') !== null;
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const sessions = useQuery({
    ...sessionQueries.list(),
    enabled: !guest,
    // The app bar is on every page: a failure here must neither take the page nor toast.
    throwOnError: false,
    select: (result) => result.rows.filter(isActive),
  });
  const rows = sessions.data ?? [];
  if (guest || rows.length === 0) return null;
  const summary = activeSummary(rows);
  const waiting = rows.some((r) => r.session?.status.condition === 'pending');
  const close = () => setAnchor(null);
  return (
    <>
      <HintTooltip title={`Your sessions: ${summary}`}>
        <IconButton
          color="inherit"
          aria-label={`Your sessions: ${summary}`}
          aria-haspopup="menu"
          aria-controls={anchor ? MENU_ID : undefined}
          aria-expanded={anchor !== null}
          onClick={(e) => setAnchor(e.currentTarget)}
        >
          <Badge badgeContent={rows.length} color={waiting ? 'warning' : 'primary'}>
            <LiveTvIcon />
          </Badge>
        </IconButton>
      </HintTooltip>
      {/* Its code comes when it is first opened: most pages are seen with the menu closed. */}
      {anchor !== null && (
        <Suspense fallback={null}>
          <SessionsMenu id={MENU_ID} anchor={anchor} rows={rows} onClose={close} />
        </Suspense>
      )}
    </>
  );
}
