/**
 * A session id as support needs it and a page can afford it: its first 8 characters, which tell a person's
 * sessions apart, on one line; the whole id in a tooltip, copied by a click. A whole UUID beside a picture
 * wrapped over six lines.
 */
import { useState } from 'react';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import Button from '@mui/material/Button';
import Tooltip from '@mui/material/Tooltip';

/** Characters of an id shown. */
export const SHORT_ID_LENGTH = 8;

/** The first characters of `id`, as the page shows them. */
export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}

/** The short id as a button that copies the whole one; its name says the whole id, its tooltip too. */
export function ShortSessionId({ id }: { id: string }) {
  // What the last click did: a page over plain http has no clipboard, and the tooltip says the id to copy by hand.
  const [copied, setCopied] = useState<'yes' | 'no'>();
  const copy = () => {
    const writing = navigator.clipboard?.writeText(id);
    if (!writing) {
      setCopied('no');
      return;
    }
    writing.then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  };
  const title =
    copied === 'yes'
      ? `Copied: ${id}`
      : copied === 'no'
        ? `This browser could not copy it: ${id}`
        : `Session ${id}: click to copy`;
  return (
    <Tooltip title={title} describeChild onClose={() => setCopied(undefined)}>
      <Button
        size="small"
        color="inherit"
        onClick={copy}
        aria-label={`Copy session id ${id}`}
        endIcon={<ContentCopyIcon />}
        sx={{
          '& .MuiButton-endIcon > *:nth-of-type(1)': { fontSize: 14 },
          fontFamily: 'monospace',
          fontSize: '0.75rem',
          textTransform: 'none',
          color: 'text.secondary',
          minWidth: 0,
          px: 0.5,
          py: 0,
          // The smallest target a finger or a shaking hand is given (WCAG 2.2, 2.5.8).
          minHeight: 24,
          ml: -0.5,
          whiteSpace: 'nowrap',
        }}
      >
        {shortId(id)}
      </Button>
    </Tooltip>
  );
}
