/**
 * The session's text clipboard (CONTRACT section 15): what a program of the session copied arrives here
 * (and on this device's clipboard where the browser allows it), and text sent from here becomes the
 * session's clipboard, to paste there with the program's own paste key.
 */
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import type { MessageRecord } from '../../../player';

/** The latest text the session put on its clipboard, from the message log. */
export function sessionClipboard(messages: MessageRecord[]): MessageRecord | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as MessageRecord;
    if (m.direction === 'in' && m.event_type === 'clipboard' && typeof m.payload.text === 'string') return m;
  }
  return undefined;
}

export function ClipboardPanel(props: {
  messages: MessageRecord[];
  canSend: boolean;
  send: (eventType: string, payload: Record<string, unknown>) => boolean;
}) {
  const copied = sessionClipboard(props.messages);
  const [text, setText] = useState('');
  const [notice, setNotice] = useState<string>();
  useEffect(() => {
    if (!copied) return;
    const value = copied.payload.text as string;
    setText(value);
    // Where the browser lets a page write the clipboard (focus, permission), the copy reaches this device too.
    navigator.clipboard?.writeText(value).then(
      () => setNotice('Copied in the session: it is on this device’s clipboard too.'),
      () => setNotice('Copied in the session: select the text here to copy it.'),
    );
  }, [copied]);
  return (
    <Paper component="section" aria-labelledby="viewer-clipboard-title" sx={{ p: 2 }}>
      <Typography id="viewer-clipboard-title" variant="h6" component="h2" gutterBottom>
        Clipboard
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
        <TextField
          size="small"
          label="Session clipboard"
          value={text}
          onChange={(e) => setText(e.target.value)}
          multiline
          maxRows={4}
          helperText={
            notice ?? 'Text copied in the session appears here; text sent from here can be pasted there.'
          }
          sx={{ flex: 1 }}
        />
        <Button
          variant="outlined"
          disabled={!props.canSend || text === ''}
          onClick={() =>
            setNotice(
              props.send('clipboard', { text })
                ? 'Sent: paste it in the session with the program’s paste key.'
                : 'Not connected: the text was not sent.',
            )
          }
        >
          Send to session
        </Button>
      </Stack>
    </Paper>
  );
}
