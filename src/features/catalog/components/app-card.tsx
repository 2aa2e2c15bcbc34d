import { Link as RouterLink } from 'react-router-dom';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { AppIcon } from '../../../components/app-icon';
import type { Application } from '../../../lib/api-client';

/** One application of the catalog. The description is plain text: React escapes it, HTML stays inert. */
export function AppCard({ app }: { app: Application }) {
  return (
    <Card component="article" aria-labelledby={`app-${app.id}`} sx={{ height: '100%' }}>
      <CardContent>
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
          <AppIcon app={app} />
          <div>
            <Typography variant="h6" component="h2" id={`app-${app.id}`}>
              <Link component={RouterLink} to={`/apps/${encodeURIComponent(app.id)}`}>
                {app.name}
              </Link>
            </Typography>
            <Typography variant="caption" color="text.secondary" component="p">
              {app.id}
            </Typography>
          </div>
        </Stack>
        <Typography variant="body2" sx={{ my: 1, overflowWrap: 'anywhere' }}>
          {app.description}
        </Typography>
        <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }} aria-label="Tags">
          {app.tags.map((tag) => (
            <Chip key={tag} label={tag} />
          ))}
        </Stack>
      </CardContent>
    </Card>
  );
}
