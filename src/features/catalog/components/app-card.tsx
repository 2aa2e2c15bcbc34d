import { Link as RouterLink } from 'react-router-dom';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Application } from '../../../lib/api-client';
import { AppCardMedia } from './app-picture';

/**
 * The wizard at its review of `id`'s latest version with its only or default profile, when it has one: with
 * the review's own Launch, two clicks from the catalog to a session. Otherwise the wizard asks what is missing.
 */
function launchLink(id: string): string {
  return `/launch?${new URLSearchParams({ app: id, step: 'review' }).toString()}`;
}

/**
 * One application of the catalog: its picture, its name (to its page of versions and profiles) and Launch.
 * The description is plain text: React escapes it, HTML stays inert.
 */
export function AppCard({ app }: { app: Application }) {
  return (
    <Card
      component="article"
      aria-labelledby={`app-${app.id}`}
      sx={{ height: '100%', display: 'flex', flexDirection: 'column' }}
    >
      <AppCardMedia app={app} />
      <CardContent sx={{ flexGrow: 1 }}>
        <Typography variant="h6" component="h2" id={`app-${app.id}`}>
          <Link component={RouterLink} to={`/apps/${encodeURIComponent(app.id)}`}>
            {app.name}
          </Link>
        </Typography>
        <Typography variant="caption" color="text.secondary" component="p">
          {app.id}
        </Typography>
        <Typography variant="body2" sx={{ my: 1, overflowWrap: 'anywhere' }}>
          {app.description}
        </Typography>
        <Stack
          direction="row"
          spacing={0.5}
          useFlexGap
          sx={{ flexWrap: 'wrap' }}
          role="group"
          aria-label="Tags"
        >
          {app.tags.map((tag) => (
            <Chip key={tag} label={tag} />
          ))}
        </Stack>
      </CardContent>
      <CardActions sx={{ px: 2, pb: 2 }}>
        <Button
          variant="contained"
          component={RouterLink}
          to={launchLink(app.id)}
          aria-label={`Launch ${app.name}`}
          startIcon={<PlayArrowIcon />}
        >
          Launch
        </Button>
      </CardActions>
    </Card>
  );
}
