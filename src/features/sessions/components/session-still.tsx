/**
 * A ready session's recent still, beside its row. It is fetched with the API token as a Blob (an <img src>
 * cannot send the token) and shown through an object URL, revoked once replaced or gone. While there is
 * none, or the service does not make them, nothing shows: no empty frame and no broken image.
 */
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import Box from '@mui/material/Box';
import type { SessionRow } from '../../../lib/queries/list-sessions';
import { stillQueries } from '../api/still-queries';

/** An object URL of `blob`, revoked when the blob changes and when the component goes. */
function useObjectUrl(blob: Blob | null | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) {
      setUrl(undefined);
      return undefined;
    }
    const next = URL.createObjectURL(blob);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [blob]);
  return url;
}

export interface SessionStillProps {
  row: SessionRow;
  /** Width of the picture (its height follows); never wider than its place. */
  width: number | string;
}

/** The still of a ready session, renewed every few seconds; nothing for other sessions. */
export function SessionStill({ row, width }: SessionStillProps) {
  const ready = row.failure === undefined && row.session?.status.condition === 'ready';
  const still = useQuery({ ...stillQueries.still(row.id), enabled: ready });
  const url = useObjectUrl(ready ? still.data : null);
  // A picture the browser could not decode is left out rather than shown broken.
  const [broken, setBroken] = useState<string>();
  if (!url || broken === url) return null;
  return (
    <Box
      component="img"
      src={url}
      alt={`Recent picture of ${row.launched ?? `session ${row.id}`}`}
      onError={() => setBroken(url)}
      sx={{
        display: 'block',
        width,
        maxWidth: '100%',
        height: 'auto',
        borderRadius: 1,
        border: 1,
        borderColor: 'divider',
      }}
    />
  );
}
