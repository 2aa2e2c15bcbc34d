/**
 * The catalog's pictures of an application: its `picture` (a frame of it running, `npm run pictures`), 16:9
 * and cropped to fill, where it has one that loads; and the top of its card, which is that picture, else its
 * icon or monogram on a band of the same shape, so that every card of the grid starts alike.
 */
import { useState, type ReactNode } from 'react';
import Box from '@mui/material/Box';
import type { SxProps, Theme } from '@mui/material/styles';
import { AppIcon, iconUrl } from '../../../components/app-icon';
import type { Application } from '../../../lib/api-client';

/** The shape of a picture, as `npm run pictures` takes them (640x360). */
const ASPECT = '16 / 9';

/**
 * The application's picture, or `fallback` where it has none or it does not load (no broken image shows).
 * `alt` is empty where the application's name is written beside it.
 */
export function AppPicture({
  app,
  alt,
  lazy = false,
  fallback = null,
  sx,
}: {
  app: Pick<Application, 'picture'>;
  alt: string;
  /** Load it only when it nears the window: for the catalog's many cards. */
  lazy?: boolean;
  fallback?: ReactNode;
  sx?: SxProps<Theme>;
}) {
  // The API's picture is an address like its icon, resolved the same way.
  const src = iconUrl(app.picture);
  // The address that failed to load, so that a changed picture gets its own try.
  const [failed, setFailed] = useState<string>();
  if (src === undefined || failed === src) return fallback;
  return (
    <Box
      component="img"
      src={src}
      alt={alt}
      width={640}
      height={360}
      loading={lazy ? 'lazy' : 'eager'}
      decoding="async"
      onError={() => setFailed(src)}
      sx={[
        { display: 'block', width: '100%', height: 'auto', aspectRatio: ASPECT, objectFit: 'cover' },
        ...(Array.isArray(sx) ? sx : [sx]),
      ]}
    />
  );
}

/** The icon, whole (never cropped), on a band of the picture's shape. */
function IconBand({ app }: { app: Pick<Application, 'id' | 'name' | 'icon'> }) {
  const src = iconUrl(app.icon);
  // The address that failed to load, so that a changed icon gets its own try.
  const [failed, setFailed] = useState<string>();
  const shown = src !== undefined && failed !== src;
  return (
    <Box
      sx={{
        position: 'relative',
        aspectRatio: ASPECT,
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
          // Out of the flow, so that no icon's own size stretches the band out of its shape.
          sx={{
            position: 'absolute',
            inset: 0,
            p: 1.5,
            boxSizing: 'border-box',
            width: '100%',
            height: '100%',
            objectFit: 'contain',
          }}
        />
      ) : (
        <AppIcon app={{ id: app.id, name: app.name }} size={72} />
      )}
    </Box>
  );
}

/**
 * The top of an application's card: its picture, else its icon. Decorative: the card's heading, right under it,
 * names the application, and a screen reader would otherwise hear each name twice.
 */
export function AppCardMedia({ app }: { app: Pick<Application, 'id' | 'name' | 'icon' | 'picture'> }) {
  return <AppPicture app={app} alt="" lazy fallback={<IconBand app={app} />} />;
}
