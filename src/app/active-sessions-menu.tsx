/** The app bar's menu of the person's waiting and running sessions: each opens its viewer. */
import Divider from '@mui/material/Divider';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import { Link as RouterLink } from 'react-router-dom';
import type { SessionRow } from '../lib/queries/list-sessions';
import { useLaunchLabel } from '../lib/queries/use-launch-names';

export interface SessionsMenuProps {
  id: string;
  anchor: HTMLElement;
  rows: readonly SessionRow[];
  onClose: () => void;
}

/** One session: what it runs, by the catalog's names, and whether it waits or runs. */
function SessionItem({ row, onClick }: { row: SessionRow; onClick: () => void }) {
  const name = useLaunchLabel(row.ids);
  return (
    <MenuItem component={RouterLink} to={`/sessions/${row.id}`} onClick={onClick}>
      <ListItemText
        primary={name ?? `Session ${row.id.slice(0, 8)}`}
        secondary={
          row.session?.status.condition === 'pending' ? row.session.status.message || 'Waiting' : 'Running'
        }
      />
    </MenuItem>
  );
}

export default function SessionsMenu({ id, anchor, rows, onClose: close }: SessionsMenuProps) {
  return (
    <Menu
      id={id}
      anchorEl={anchor}
      open
      onClose={close}
      slotProps={{ list: { 'aria-label': 'Your sessions' } }}
    >
      {rows.map((row) => (
        <SessionItem key={row.id} row={row} onClick={close} />
      ))}
      <Divider />
      <MenuItem component={RouterLink} to="/sessions" onClick={close}>
        All sessions
      </MenuItem>
    </Menu>
  );
}
