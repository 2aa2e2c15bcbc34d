/**
 * Who is in the session, in the order they joined, and who is in control (protocol/people.ts). An owner gives
 * control to anyone, takes it back, and removes a watcher (after a confirmation: the link it came by no longer
 * lets it in); whoever is in control gives it on; a watcher asks for it.
 */
import CloseIcon from '@mui/icons-material/Close';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import DialogContentText from '@mui/material/DialogContentText';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemAvatar from '@mui/material/ListItemAvatar';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import type { PeoplePayload, Person } from '../../../player';
import { peopleRoles, type PeopleLink } from '../hooks/use-people';

/** What a person reads when a request could not go (the stream is not connected). */
export const NOT_SENT_TEXT = 'Not connected: nothing was sent. Try again once the stream plays.';

/** Who is in control, in one sentence, for the panel's top. */
export function controlSentence(payload: PeoplePayload): string {
  const { controller, controlling } = peopleRoles(payload);
  if (controlling) return 'You are in control: your keys and pointer reach the program.';
  return controller ? `${controller.name} is in control.` : 'Nobody is in control.';
}

/** A person's role and state, under their name. */
function personState(person: Person, controller: string | null): string {
  return [
    person.role === 'owner' ? 'Owner' : 'Watcher',
    person.id === controller && 'in control',
    person.asking && 'asking for control',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Asks before removing a watcher: the link it came by stops working for it. */
function RemoveDialog(props: { person: Person | undefined; onCancel: () => void; onConfirm: () => void }) {
  const name = props.person?.name ?? '';
  return (
    <ConfirmDialog
      open={props.person !== undefined}
      titleId="remove-viewer-title"
      title={`Remove ${name}?`}
      cancelLabel="Cancel"
      confirmLabel="Remove"
      onCancel={props.onCancel}
      onConfirm={props.onConfirm}
    >
      <DialogContentText>
        {name} is disconnected at once and will not be able to come back with the same link. Others who came
        by that link stay until they leave.
      </DialogContentText>
    </ConfirmDialog>
  );
}

/** The panel's content; `titleId` labels the drawer it is in. */
export function PeoplePanel(props: {
  payload: PeoplePayload;
  link: PeopleLink;
  titleId: string;
  onClose: () => void;
}) {
  const { payload, link } = props;
  const roles = peopleRoles(payload);
  const [notice, setNotice] = useState<string>();
  const [removing, setRemoving] = useState<Person>();
  const sent = (ok: boolean) => setNotice(ok ? undefined : NOT_SENT_TEXT);
  const asking = roles.me?.asking === true;
  return (
    <Box sx={{ p: 2 }}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography id={props.titleId} variant="h6" component="h2">
          People
        </Typography>
        <IconButton aria-label="Close" onClick={props.onClose} edge="end">
          <CloseIcon />
        </IconButton>
      </Stack>
      <Typography variant="body2" color="text.secondary">
        {controlSentence(payload)}
      </Typography>
      {roles.owner && roles.controller && !roles.controlling && (
        <Button variant="contained" sx={{ mt: 1 }} onClick={() => sent(link.take())}>
          Take control
        </Button>
      )}
      {!roles.owner && !roles.controlling && (
        <Button
          variant={asking ? 'outlined' : 'contained'}
          sx={{ mt: 1 }}
          onClick={() => sent(link.ask(!asking))}
        >
          {asking ? 'Stop asking' : 'Ask for control'}
        </Button>
      )}
      {notice && (
        <Typography role="status" variant="body2" color="error" sx={{ mt: 1 }}>
          {notice}
        </Typography>
      )}
      <List aria-label="People in this session" sx={{ mt: 1 }}>
        {payload.people.map((person) => {
          const you = person.id === payload.you;
          const give = roles.canGive && !you && person.id !== payload.controller;
          const remove = roles.owner && !you && person.role === 'watcher';
          return (
            <ListItem key={person.id} divider disableGutters sx={{ flexWrap: 'wrap', columnGap: 1 }}>
              <ListItemAvatar sx={{ minWidth: 48 }}>
                <Avatar aria-hidden sx={{ width: 32, height: 32, fontSize: '0.9rem' }}>
                  {person.name.trim().charAt(0).toUpperCase() || '?'}
                </Avatar>
              </ListItemAvatar>
              <ListItemText
                primary={`${person.name}${you ? ' (you)' : ''}`}
                secondary={personState(person, payload.controller)}
                sx={{ flex: '1 1 8rem', minWidth: 0, overflowWrap: 'anywhere' }}
              />
              {(give || remove) && (
                <Stack direction="row" spacing={1}>
                  {give && (
                    <Button
                      size="small"
                      variant="outlined"
                      aria-label={`Give control to ${person.name}`}
                      onClick={() => sent(link.give(person.id))}
                    >
                      Give control
                    </Button>
                  )}
                  {remove && (
                    <Button
                      size="small"
                      color="error"
                      aria-label={`Remove ${person.name}`}
                      onClick={() => setRemoving(person)}
                    >
                      Remove
                    </Button>
                  )}
                </Stack>
              )}
            </ListItem>
          );
        })}
      </List>
      <RemoveDialog
        person={removing}
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => {
          if (removing) sent(link.remove(removing.id));
          setRemoving(undefined);
        }}
      />
    </Box>
  );
}
