import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ReasonedButton } from '../../../components/reasoned-button';
import { signsIn } from '../../../lib/auth/sign-in';
import { baseUrlProblem, clearOverrides, getConfig, getOverrides, saveOverrides } from '../../../lib/config';
import { testConnection } from '../api/test-connection';

/** Per-browser settings: catalog URL, stream URL and token, with a connection test. */
export function SettingsPage() {
  const queryClient = useQueryClient();
  const initial = getConfig();
  const [catalogUrl, setCatalogUrl] = useState(initial.catalogUrl);
  const [streamUrl, setStreamUrl] = useState(initial.streamUrl);
  const [token, setToken] = useState(initial.token ?? '');
  const [saved, setSaved] = useState<string | undefined>();
  const draft = { ...initial, catalogUrl, streamUrl, token: token || null };
  const test = useMutation({ mutationFn: testConnection });
  const hasOverrides = Object.keys(getOverrides()).length > 0;
  const catalogProblem = baseUrlProblem(catalogUrl);
  const streamProblem = baseUrlProblem(streamUrl);
  const saveBlocked =
    catalogProblem || streamProblem
      ? `Fix the ${catalogProblem ? 'catalog' : 'stream'} URL above to save.`
      : undefined;

  const afterChange = (message: string) => {
    // Answers from the old endpoints or token must not be shown as if they came from the new ones.
    queryClient.removeQueries();
    setSaved(message);
  };

  return (
    <Stack spacing={2} sx={{ maxWidth: 640 }}>
      <Typography variant="h4" component="h1">
        Settings
      </Typography>
      <Typography color="text.secondary">These settings apply to this browser only.</Typography>
      <Stack
        component="form"
        aria-label="Connection settings"
        spacing={2}
        onSubmit={(e) => {
          e.preventDefault();
          if (saveBlocked) return;
          saveOverrides({ catalogUrl, streamUrl, token: token || null });
          afterChange('Settings saved.');
        }}
      >
        <TextField
          label="Catalog URL"
          value={catalogUrl}
          onChange={(e) => setCatalogUrl(e.target.value)}
          error={catalogProblem !== undefined}
          helperText={
            catalogProblem ?? 'Base of the configuration API, e.g. /api or https://host/applications'
          }
          required
        />
        <TextField
          label="Stream URL"
          value={streamUrl}
          onChange={(e) => setStreamUrl(e.target.value)}
          error={streamProblem !== undefined}
          helperText={streamProblem ?? 'Base of the streaming API, e.g. /api or https://host/streaming'}
          required
        />
        <TextField
          label="Access token"
          type="password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          helperText={
            signsIn()
              ? 'Sent as a bearer token instead of your sign-in; leave empty to use your sign-in.'
              : 'Sent as a bearer token; leave empty for none.'
          }
          autoComplete="off"
        />
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <ReasonedButton type="submit" variant="contained" reason={saveBlocked}>
            Save
          </ReasonedButton>
          <Button onClick={() => test.mutate(draft)} disabled={test.isPending}>
            {test.isPending ? 'Testing…' : 'Test connection'}
          </Button>
          <ReasonedButton
            reason={hasOverrides ? undefined : 'Nothing to reset: this browser uses the served settings.'}
            onClick={() => {
              clearOverrides();
              const served = getConfig();
              setCatalogUrl(served.catalogUrl);
              setStreamUrl(served.streamUrl);
              setToken(served.token ?? '');
              afterChange('Settings reset to the served configuration.');
            }}
          >
            Reset
          </ReasonedButton>
        </Stack>
      </Stack>
      {saved && (
        <Alert severity="success" role="status" onClose={() => setSaved(undefined)}>
          {saved}
        </Alert>
      )}
      {test.data && (
        <Stack spacing={1} component="section" aria-label="Connection test results">
          <Alert severity={test.data.catalog.ok ? 'success' : 'error'}>{test.data.catalog.message}</Alert>
          <Alert severity={test.data.stream.ok ? 'success' : 'error'}>{test.data.stream.message}</Alert>
        </Stack>
      )}
    </Stack>
  );
}
