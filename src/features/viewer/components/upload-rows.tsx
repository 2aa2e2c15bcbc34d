import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { formatBytes } from '../../../../protocol/files';
import type { UploadRow } from '../api/file-uploads';

/** How far an upload is, in whole percent. */
function percent(row: UploadRow): number {
  if (row.state !== 'sending' || row.size === 0) return 0;
  return Math.min(100, Math.floor((row.loaded / row.size) * 100));
}

/** The uploads under way, each with its progress and a Cancel, and the failed ones with their sentence. */
export function UploadRows(props: {
  rows: readonly UploadRow[];
  onCancel: (id: number) => void;
  onDismiss: (id: number) => void;
}) {
  if (props.rows.length === 0) return null;
  return (
    <Stack component="ul" aria-label="Uploads" spacing={1} sx={{ listStyle: 'none', p: 0, m: 0 }}>
      {props.rows.map((row) =>
        row.state === 'failed' ? (
          <li key={row.id}>
            <Alert
              severity="error"
              action={
                <Button
                  color="inherit"
                  size="small"
                  onClick={() => props.onDismiss(row.id)}
                  aria-label={`Dismiss ${row.name}`}
                >
                  Dismiss
                </Button>
              }
            >
              <Typography variant="body2" sx={{ fontWeight: 'bold', overflowWrap: 'anywhere' }}>
                {row.name}
              </Typography>
              {row.problem}
            </Alert>
          </li>
        ) : (
          <Stack component="li" key={row.id} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <Stack sx={{ flex: 1, minWidth: 0 }}>
              <Typography variant="body2" noWrap title={row.name}>
                {row.name}
              </Typography>
              <LinearProgress
                variant="determinate"
                value={percent(row)}
                aria-label={`Uploading ${row.name}`}
              />
              <Typography variant="caption" color="text.secondary">
                {row.state === 'sending'
                  ? `${percent(row)}% of ${formatBytes(row.size)}`
                  : `Waiting: ${formatBytes(row.size)}`}
              </Typography>
            </Stack>
            <Button
              size="small"
              onClick={() => props.onCancel(row.id)}
              aria-label={`Cancel upload of ${row.name}`}
            >
              Cancel
            </Button>
          </Stack>
        ),
      )}
    </Stack>
  );
}
