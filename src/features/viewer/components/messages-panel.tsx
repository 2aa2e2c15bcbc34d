/** Application events: send openStageRequest or loadingStateQuery, and list what was sent and received. */
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import type { MessageRecord } from '../../../player';

/**
 * The panel; `send` returns false when the channel is not open yet. Once `ended`, only the log is left; the
 * stage controls only where the application opens stages (`stageControls`).
 */
export function MessagesPanel(props: {
  messages: MessageRecord[];
  canSend: boolean;
  ended: boolean;
  stageControls: boolean;
  send: (eventType: string, payload: Record<string, unknown>) => boolean;
}) {
  const [url, setUrl] = useState('');
  const [notice, setNotice] = useState<string>();
  const send = (eventType: string, payload: Record<string, unknown>) => {
    setNotice(props.send(eventType, payload) ? undefined : 'Not connected: the event was not sent.');
  };
  return (
    <Paper component="section" aria-labelledby="viewer-messages-title" sx={{ p: 2 }}>
      <Typography id="viewer-messages-title" variant="h6" component="h2" gutterBottom>
        Application messages
      </Typography>
      {!props.ended && props.stageControls && (
        <>
          <Stack
            component="form"
            direction={{ xs: 'column', sm: 'row' }}
            spacing={1}
            onSubmit={(e) => {
              e.preventDefault();
              if (url.trim()) send('openStageRequest', { url: url.trim() });
            }}
          >
            <TextField
              size="small"
              label="Stage URL"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              sx={{ flex: 1 }}
            />
            <Button type="submit" variant="contained" disabled={!props.canSend || !url.trim()}>
              Open stage
            </Button>
            <Button
              variant="outlined"
              disabled={!props.canSend}
              onClick={() => send('loadingStateQuery', {})}
            >
              Query loading state
            </Button>
          </Stack>
          {notice && (
            <Typography color="error" variant="body2" sx={{ mt: 1 }}>
              {notice}
            </Typography>
          )}
        </>
      )}
      <Box sx={{ maxHeight: 240, overflow: 'auto', mt: 1 }}>
        <List dense aria-label="Message log">
          {props.messages.length === 0 && (
            <ListItem>
              <ListItemText secondary="No messages yet." />
            </ListItem>
          )}
          {[...props.messages].reverse().map((m) => (
            <ListItem key={`${m.time}-${m.direction}-${m.event_type}-${JSON.stringify(m.payload)}`}>
              <ListItemText
                primary={`${m.direction === 'in' ? 'Received' : 'Sent'} ${m.event_type}`}
                secondary={`${new Date(m.time).toLocaleTimeString()} ${JSON.stringify(m.payload)}`}
              />
            </ListItem>
          ))}
        </List>
      </Box>
    </Paper>
  );
}
