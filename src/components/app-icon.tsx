/**
 * An application's icon: the catalog's image where it has one that loads, else a monogram of its name in a
 * colour of its own. Decorative: the name is always written beside it.
 */
import Box from '@mui/material/Box';
import { useState } from 'react';
import type { Application } from '../lib/api-client';
import { getConfig, resolveBaseUrl } from '../lib/config';

/** Dark enough that white letters on each pass WCAG AA (4.5:1). */
const COLOURS = [
  '#1565c0',
  '#2e7d32',
  '#6a1b9a',
  '#ad1457',
  '#00695c',
  '#4e342e',
  '#37474f',
  '#c62828',
  '#283593',
  '#bf360c',
];

/** "USD Viewer" → "UV", "Gears" → "G": the first letters of the first two words. */
export function monogram(name: string): string {
  const words = name.match(/[\p{L}\p{N}]+/gu) ?? [];
  return words
    .slice(0, 2)
    .map((w) => w.charAt(0).toUpperCase())
    .join('');
}

/** The same colour for an id every time, spread over the palette. */
export function monogramColour(id: string): string {
  let hash = 0;
  for (const ch of id) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return COLOURS[hash % COLOURS.length] as string;
}

/** The icon's address, resolved as the API says: against the catalog API's address; only http(s). */
export function iconUrl(icon: string | undefined): string | undefined {
  if (!icon) return undefined;
  try {
    const url = new URL(icon, `${resolveBaseUrl(getConfig().catalogUrl)}/`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A square of `size` CSS pixels. */
export function AppIcon({
  app,
  size = 40,
}: {
  app: Pick<Application, 'id' | 'name' | 'icon'>;
  size?: number;
}) {
  const src = iconUrl(app.icon);
  // The address that failed to load, so that a changed icon gets its own try.
  const [failed, setFailed] = useState<string>();
  if (src && failed !== src) {
    return (
      <Box
        component="img"
        src={src}
        alt=""
        aria-hidden="true"
        width={size}
        height={size}
        onError={() => setFailed(src)}
        sx={{ borderRadius: 1.5, objectFit: 'contain', flexShrink: 0 }}
      />
    );
  }
  return (
    <Box
      aria-hidden="true"
      data-testid="app-monogram"
      sx={{
        width: size,
        height: size,
        flexShrink: 0,
        borderRadius: 1.5,
        bgcolor: monogramColour(app.id),
        color: '#ffffff',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        fontWeight: 700,
        fontSize: size * 0.4,
        userSelect: 'none',
      }}
    >
      {monogram(app.name) || '?'}
    </Box>
  );
}
