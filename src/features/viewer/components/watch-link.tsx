/** A link for others to watch without controlling, with a copy button. */
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import { useState } from 'react';

/** The watch-only URL of a session on this portal. */
export function watchUrl(origin: string, sessionId: string): string {
  return `${origin}/sessions/${encodeURIComponent(sessionId)}?mode=watch`;
}

/** A read-only field with the link; copying falls back to selecting the text where the clipboard is refused. */
export function WatchLink(props: { sessionId: string }) {
  const url = watchUrl(window.location.origin, props.sessionId);
  const [copied, setCopied] = useState(false);
  return (
    <TextField
      size="small"
      label="Watch-only link"
      value={url}
      helperText={copied ? 'Copied.' : 'Anyone with access can watch; their input is ignored.'}
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
