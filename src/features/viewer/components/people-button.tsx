/**
 * The toolbar's People button: how many are connected (a badge, amber while someone asks for control of a
 * person who can give it), opening the people panel in a drawer: at the side on a wide screen, from the bottom
 * on a phone. Until the application says who is here (one that predates people never does), it waits disabled.
 */
import PeopleIcon from '@mui/icons-material/People';
import Badge from '@mui/material/Badge';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import { useState } from 'react';
import { useNarrow } from '../../../components/use-narrow';
import { peopleRoles, type People } from '../hooks/use-people';
import { PeopleNotices } from './people-notices';
import { PeoplePanel } from './people-panel';

const TITLE_ID = 'viewer-people-title';

export function PeopleButton(props: { people: People }) {
  const { payload, link } = props.people;
  const narrow = useNarrow();
  const [open, setOpen] = useState(false);
  const count = payload?.people.length ?? 0;
  const asking = payload && peopleRoles(payload).canGive ? payload.people.filter((p) => p.asking).length : 0;
  const label = payload
    ? `People: ${count} ${count === 1 ? 'person' : 'people'} connected${asking > 0 ? `, ${asking} asking for control` : ''}`
    : 'People';
  return (
    <>
      <Tooltip title="People">
        <span>
          <IconButton
            aria-label={label}
            aria-haspopup="dialog"
            aria-expanded={open}
            disabled={!payload}
            onClick={() => setOpen(true)}
          >
            <Badge badgeContent={count} color={asking > 0 ? 'warning' : 'primary'} invisible={!payload}>
              <PeopleIcon />
            </Badge>
          </IconButton>
        </span>
      </Tooltip>
      <Drawer
        anchor={narrow ? 'bottom' : 'right'}
        open={open && payload !== undefined}
        onClose={() => setOpen(false)}
        slotProps={{
          paper: {
            role: 'dialog',
            'aria-labelledby': TITLE_ID,
            sx: narrow
              ? { maxHeight: '80dvh', borderTopLeftRadius: 12, borderTopRightRadius: 12 }
              : { width: 380 },
          },
        }}
      >
        {payload && (
          <PeoplePanel payload={payload} link={link} titleId={TITLE_ID} onClose={() => setOpen(false)} />
        )}
      </Drawer>
      <PeopleNotices payload={payload} link={link} />
    </>
  );
}
