import { Link as RouterLink } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import { appQueries } from '../../../lib/queries/app-queries';

/** The profiles of one application version, each with its Launch action. */
export function ProfileList({ appId, version }: { appId: string; version: string }) {
  const profiles = useQuery(appQueries.profiles(appId, version));
  if (profiles.isPending) return <CircularProgress aria-label="Loading profiles" />;
  if (!profiles.data)
    return (
      <ErrorAlert
        error={profiles.error}
        what={`Version ${version}`}
        onRetry={() => void profiles.refetch()}
      />
    );
  if (profiles.data.length === 0) return <Typography>No profile applies to version {version}.</Typography>;
  return (
    <Stack spacing={1.5} component="section" aria-label={`Profiles of version ${version}`}>
      {profiles.data.map((p) => (
        <Card key={p.id}>
          <CardContent sx={{ pb: 0 }}>
            <Typography variant="subtitle1" component="h3">
              {p.name}{' '}
              <Typography component="span" variant="caption" color="text.secondary">
                ({p.id})
              </Typography>
            </Typography>
            <Typography variant="body2">{p.description}</Typography>
          </CardContent>
          <CardActions>
            <Button
              variant="contained"
              component={RouterLink}
              aria-label={`Launch ${appId} ${version} with ${p.name}`}
              to={`/launch?${new URLSearchParams({ app: appId, version, profile: p.id }).toString()}`}
            >
              Launch
            </Button>
          </CardActions>
        </Card>
      ))}
    </Stack>
  );
}
