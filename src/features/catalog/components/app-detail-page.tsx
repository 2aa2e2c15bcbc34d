import { useParams, useSearchParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Grid from '@mui/material/Grid';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { AppIcon } from '../../../components/app-icon';
import { ErrorAlert } from '../../../components/error-alert';
import { versionParam } from '../../../lib/versions';
import { appQueries } from '../../../lib/queries/app-queries';
import { AppPicture } from './app-picture';
import { ProfileList } from './profile-list';
import { VersionList } from './version-list';

/** One application: its versions in SemVer order and the profiles of the chosen version (`?version=`). */
export function AppDetailPage() {
  const appId = useParams().appId ?? '';
  const [params, setParams] = useSearchParams();
  const app = useQuery(appQueries.detail(appId));
  const versions = useQuery(appQueries.versions(appId));
  const chosen =
    versionParam(params) ?? versions.data?.find((v) => v.latest)?.version ?? versions.data?.[0]?.version;

  if (app.isPending) return <CircularProgress aria-label="Loading application" />;
  if (!app.data)
    return <ErrorAlert error={app.error} what={`Application ${appId}`} onRetry={() => void app.refetch()} />;
  return (
    <>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={3} sx={{ mb: 2 }}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
            <AppIcon app={app.data} size={56} />
            <Typography variant="h4" component="h1">
              {app.data.name}
            </Typography>
          </Stack>
          <Typography variant="caption" color="text.secondary" component="p">
            {app.data.id}
          </Typography>
          <Typography sx={{ my: 1, overflowWrap: 'anywhere' }}>{app.data.description}</Typography>
          <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
            {app.data.tags.map((tag) => (
              <Chip key={tag} label={tag} />
            ))}
          </Stack>
        </Box>
        {/* What the application looks like is this page's news, not a repeat of its name: it is described. */}
        <AppPicture
          app={app.data}
          alt={`${app.data.name} running in Streamgate`}
          sx={{ width: { xs: '100%', md: 480 }, flexShrink: 0, borderRadius: 1 }}
        />
      </Stack>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 4 }}>
          <Typography variant="h5" component="h2">
            Versions
          </Typography>
          {versions.isPending && <CircularProgress aria-label="Loading versions" />}
          {versions.isError && !versions.data && (
            <ErrorAlert error={versions.error} onRetry={() => void versions.refetch()} />
          )}
          {versions.data?.length === 0 && <Typography>No versions.</Typography>}
          {versions.data && (
            <VersionList
              versions={versions.data}
              selected={chosen}
              onSelect={(version) => setParams({ version }, { replace: true })}
            />
          )}
        </Grid>
        <Grid size={{ xs: 12, md: 8 }}>
          <Typography variant="h5" component="h2">
            Profiles{chosen ? ` of ${chosen}` : ''}
          </Typography>
          {chosen && <ProfileList appId={appId} version={chosen} />}
        </Grid>
      </Grid>
    </>
  );
}
