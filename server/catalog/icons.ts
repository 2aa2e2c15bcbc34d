/**
 * Application icons of the catalog (`icon`): an http(s) URL, or an image file beside the catalog file that
 * the service serves under /catalog-icons/, outside the API, since an <img> cannot send a token.
 */
import path from 'node:path';
import type { Catalog } from './model.ts';

/** Where the service serves icon files. */
export const ICON_ROUTE = '/catalog-icons/';

/** Images an icon file may be, by extension: what browsers show in an <img>. */
export const ICON_TYPES: Readonly<Record<string, string>> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

const URL_PATTERN = /^https?:\/\/[^/\s]/i;

/** Why `icon` cannot be used, in words; undefined when it can. */
export function iconProblem(icon: string): string | undefined {
  if (URL_PATTERN.test(icon)) return undefined;
  const segments = icon.split(/[\\/]/);
  const extension = path.extname(icon).toLowerCase();
  if (icon.startsWith('/') || icon.includes(':') || segments.includes('..') || segments.includes('')) {
    return `"icon" must be an http(s) URL or a file in the catalog's folder, such as icons/app.svg`;
  }
  if (!(extension in ICON_TYPES)) {
    return `"icon" must name an image (${Object.keys(ICON_TYPES).join(', ')})`;
  }
  return undefined;
}

/** What the API says of an icon: its URL, or the path on this host that serves the file. */
export function iconAddress(icon: string): string {
  if (URL_PATTERN.test(icon)) return icon;
  return ICON_ROUTE + icon.split(/[\\/]/).map(encodeURIComponent).join('/');
}

/** The file an icon names, beside the catalog file; undefined for an http(s) URL. */
export function iconFile(icon: string, catalogFile: string): string | undefined {
  return URL_PATTERN.test(icon) ? undefined : path.join(path.dirname(path.resolve(catalogFile)), icon);
}

/** The files the catalog names, by the path their address has after ICON_ROUTE (decoded), to serve. */
export function iconFiles(
  catalog: Catalog,
  catalogFile: string,
): Map<string, { file: string; type: string }> {
  const files = new Map<string, { file: string; type: string }>();
  for (const app of catalog.apps) {
    const file = app.icon && iconFile(app.icon, catalogFile);
    if (!app.icon || !file) continue;
    const type = ICON_TYPES[path.extname(app.icon).toLowerCase()] ?? 'application/octet-stream';
    files.set(app.icon.split(/[\\/]/).join('/'), { file, type });
  }
  return files;
}

/** The origins of the catalog's icon URLs (`https://cdn.example`), each once. */
export function iconOrigins(catalog: Catalog): string[] {
  const origins = catalog.apps.flatMap((app) =>
    app.icon && URL_PATTERN.test(app.icon) ? [new URL(app.icon).origin] : [],
  );
  return [...new Set(origins)];
}
