/**
 * The picture at the top of an application's card: the catalog's image of it (`icon`, the one picture the API
 * gives) where it has one that loads, else its monogram, so that every card of the grid starts alike.
 * Decorative: the card names the application beside it.
 */
import { useState } from 'react';
import Box from '@mui/material/Box';
import { AppIcon, iconUrl } from '../../../components/app-icon';
import type { Application } from '../../../lib/api-client';

/** Height of the picture's band, in CSS pixels. */
const HEIGHT = 140;

/** The application's picture, whole (never cropped), on a band as wide as its card. */
export function AppPicture({ app }: { app: Pick<Application, 'id' | 'name' | 'icon'> }) {
  const src = iconUrl(app.icon);
  // The address that failed to load, so that a changed picture gets its own try.
  const [failed, setFailed] = useState<string>();
  const shown = src !== undefined && failed !== src;
  return (
    <Box
      sx={{
        height: HEIGHT,
        p: 1.5,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        bgcolor: 'action.hover',
      }}
    >
      {shown ? (
        <Box
          component="img"
          src={src}
          alt=""
          aria-hidden="true"
          onError={() => setFailed(src)}
          sx={{ width: '100%', height: '100%', objectFit: 'contain' }}
        />
      ) : (
        <AppIcon app={{ id: app.id, name: app.name }} size={72} />
      )}
    </Box>
  );
}
