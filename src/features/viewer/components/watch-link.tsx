/**
 * Sharing a session to watch: a link made on request, holding a watch ticket (CONTRACT section 14), so that
 * whoever opens it can watch without signing in and can never control. Made only when asked, since each
 * link is a ticket that lasts as long as the session, or until the owner stops sharing.
 */
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { describeError } from '../../../lib/error-text';
import { forgetSharedLink, hasSharedLink, rememberSharedLink } from '../api/shared-links';
import { stopSharing } from '../api/stop-sharing';
import { createWatchLink } from '../api/watch-link';

/** The watch-only URL of a session on this portal for people who can sign in to it (no tickets issued). */
export function signedInWatchUrl(origin: string, sessionId: string): string {
  return `${origin}/sessions/${encodeURIComponent(sessionId)}?mode=watch`;
}

/**
 * A button that makes the link, then a read-only field with it and a copy button; beside it, while a link
 * exists (made on this page, or earlier in this browser), "Stop sharing", after which every link made so far
 * stops working and whoever watches through one is disconnected. Says in words what it did.
 */
export function WatchLink(props: { sessionId: string; title?: string | undefined }) {
  const [copied, setCopied] = useState(false);
  // Not server data: the service lists no links. This browser's own record of having made one.
  const [linked, setLinked] = useState(() => hasSharedLink(props.sessionId));
  const make = useMutation({
    mutationFn: async () => {
      const origin = window.location.origin;
      const shared = await createWatchLink(origin, props.sessionId, props.title);
      return shared
        ? {
            url: shared,
            note: 'Anyone with this link can watch until the session ends or you stop sharing; they cannot control it.',
            revocable: true,
          }
        : {
            url: signedInWatchUrl(origin, props.sessionId),
            note: 'People who can sign in to this portal can watch with this link; their input is ignored.',
            revocable: false,
          };
    },
    onSuccess: ({ revocable }) => {
      if (!revocable) return;
      rememberSharedLink(props.sessionId);
      setLinked(true);
    },
  });
  const stop = useMutation({ mutationFn: () => stopSharing(props.sessionId) });
  const share = () => {
    stop.reset();
    setCopied(false);
    make.mutate();
  };
  // The link shown no longer works once sharing stopped: it goes with it.
  const stopNow = () =>
    stop.mutate(undefined, {
      onSuccess: () => {
        make.reset();
        forgetSharedLink(props.sessionId);
        setLinked(false);
      },
    });
  // Only while a link exists: with nothing shared, there is nothing to stop.
  const canStop = linked && make.data?.revocable !== false;
  return (
    <Stack spacing={1}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'start', flexWrap: 'wrap' }}>
        {make.data ? (
          <WatchLinkField
            url={make.data.url}
            helperText={copied ? 'Copied.' : make.data.note}
            onCopied={() => setCopied(true)}
          />
        ) : (
          <Button variant="outlined" disabled={make.isPending} onClick={share}>
            {make.isPending ? 'Making a watch-only link…' : 'Share a watch-only link'}
          </Button>
        )}
        {canStop && (
          <Button variant="text" color="warning" disabled={stop.isPending} onClick={stopNow}>
            {stop.isPending ? 'Stopping sharing…' : 'Stop sharing'}
          </Button>
        )}
      </Stack>
      {make.isError && <Alert severity="error">{describeError(make.error, 'The watch-only link')}</Alert>}
      {stop.isSuccess && (
        <Alert severity="success" role="status">
          Sharing stopped: the watch-only links made so far no longer work, and anyone watching through one
          has been disconnected. A link you share from now on works.
        </Alert>
      )}
      {stop.isError && <Alert severity="error">{describeError(stop.error, 'The session')}</Alert>}
    </Stack>
  );
}

/** The read-only link with its copy button (which selects the text where the clipboard is refused). */
function WatchLinkField(props: { url: string; helperText: string; onCopied: () => void }) {
  const { url } = props;
  return (
    <TextField
      size="small"
      label="Watch-only link"
      value={url}
      helperText={props.helperText}
      sx={{ flex: '1 1 20rem' }}
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
                    props.onCopied();
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
