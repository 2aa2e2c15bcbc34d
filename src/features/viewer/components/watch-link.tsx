/**
 * Sharing a session to watch: a link made on request, holding a watch ticket (CONTRACT section 14), so that
 * whoever opens it can watch without signing in and can never control. Made only when asked, since each
 * link is a ticket that lasts as long as the session.
 */
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { describeError } from '../../../lib/error-text';
import { createWatchLink } from '../api/watch-link';

/** The watch-only URL of a session on this portal for people who can sign in to it (no tickets issued). */
export function signedInWatchUrl(origin: string, sessionId: string): string {
  return `${origin}/sessions/${encodeURIComponent(sessionId)}?mode=watch`;
}

/** A button that makes the link, then a read-only field with it and a copy button. */
export function WatchLink(props: { sessionId: string }) {
  const [copied, setCopied] = useState(false);
  const make = useMutation({
    mutationFn: async () => {
      const origin = window.location.origin;
      const shared = await createWatchLink(origin, props.sessionId);
      return shared
        ? {
            url: shared,
            note: 'Anyone with this link can watch until the session ends; they cannot control it.',
          }
        : {
            url: signedInWatchUrl(origin, props.sessionId),
            note: 'People who can sign in to this portal can watch with this link; their input is ignored.',
          };
    },
  });
  if (!make.data) {
    return (
      <>
        <Button
          variant="outlined"
          sx={{ alignSelf: 'start' }}
          disabled={make.isPending}
          onClick={() => make.mutate()}
        >
          {make.isPending ? 'Making a watch-only link…' : 'Share a watch-only link'}
        </Button>
        {make.isError && <Alert severity="error">{describeError(make.error, 'The watch-only link')}</Alert>}
      </>
    );
  }
  const { url, note } = make.data;
  return (
    <TextField
      size="small"
      label="Watch-only link"
      value={url}
      helperText={copied ? 'Copied.' : note}
      fullWidth
      slotProps={{
        input: {
          readOnly: true,
          endAdornment: (
            <InputAdornment position="end">
              <IconButton
                aria-label="Copy watch-only link"
                onClick={async (e) => {
                  try {
                    await navigator.clipboard.writeText(url);
                    setCopied(true);
                  } catch {
                    const input = e.currentTarget.closest('.MuiInputBase-root')?.querySelector('input');
                    input?.select();
                  }
                }}
              >
                <ContentCopyIcon />
              </IconButton>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
