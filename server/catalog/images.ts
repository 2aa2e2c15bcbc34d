/**
 * Images of the catalog's applications: `icon` (a small square beside the name) and `picture` (the application
 * running, at the top of its card). Each is an http(s) URL, or an image file beside the catalog file that the
 * service serves under its kind's route (/catalog-icons/, /catalog-pictures/), outside the API, since an <img>
 * cannot send a token. One set of rules for both: only the route and the image types differ.
 */
import path from 'node:path';
import type { Catalog } from './model.ts';

/** The keys of an application that name an image. */
export type ImageKey = 'icon' | 'picture';

export interface ImageKind {
  /** Where the service serves this kind's files. */
  route: string;
  /** Images a file of this kind may be, by extension: what browsers show in an <img>. */
  types: Readonly<Record<string, string>>;
  /** A file as the catalog would name it, for messages. */
  example: string;
}

const RASTER: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

export const IMAGE_KINDS: Readonly<Record<ImageKey, ImageKind>> = {
  icon: { route: '/catalog-icons/', types: { '.svg': 'image/svg+xml', ...RASTER }, example: 'icons/app.svg' },
  // A picture is a frame of the running application (`npm run screenshots`): a photo, never a drawing.
  picture: { route: '/catalog-pictures/', types: RASTER, example: 'pictures/app.webp' },
};

export const IMAGE_KEYS = Object.keys(IMAGE_KINDS) as ImageKey[];

const URL_PATTERN = /^https?:\/\/[^/\s]/i;

/** Why `value` cannot be the application's `key`, in words; undefined when it can. */
export function imageProblem(key: ImageKey, value: string): string | undefined {
  if (URL_PATTERN.test(value)) return undefined;
  const { types, example } = IMAGE_KINDS[key];
  const segments = value.split(/[\\/]/);
  const extension = path.extname(value).toLowerCase();
  if (value.startsWith('/') || value.includes(':') || segments.includes('..') || segments.includes('')) {
    return `"${key}" must be an http(s) URL or a file in the catalog's folder, such as ${example}`;
  }
  if (!(extension in types)) {
    return `"${key}" must name an image (${Object.keys(types).join(', ')})`;
  }
  return undefined;
}

/** What the API says of an image: its URL, or the path on this host that serves the file. */
export function imageAddress(key: ImageKey, value: string): string {
  if (URL_PATTERN.test(value)) return value;
  return IMAGE_KINDS[key].route + value.split(/[\\/]/).map(encodeURIComponent).join('/');
}

/** The file an image names, beside the catalog file; undefined for an http(s) URL. */
export function imageFile(value: string, catalogFile: string): string | undefined {
  return URL_PATTERN.test(value) ? undefined : path.join(path.dirname(path.resolve(catalogFile)), value);
}

/** The files of one kind the catalog names, by the path their address has after the kind's route (decoded). */
export function imageFiles(
  catalog: Catalog,
  catalogFile: string,
  key: ImageKey,
): Map<string, { file: string; type: string }> {
  const files = new Map<string, { file: string; type: string }>();
  for (const app of catalog.apps) {
    const value = app[key];
    const file = value && imageFile(value, catalogFile);
    if (!value || !file) continue;
    const type = IMAGE_KINDS[key].types[path.extname(value).toLowerCase()] ?? 'application/octet-stream';
    files.set(value.split(/[\\/]/).join('/'), { file, type });
  }
  return files;
}

/** The origins of the catalog's image URLs, icons and pictures (`https://cdn.example`), each once. */
export function imageOrigins(catalog: Catalog): string[] {
  const origins = catalog.apps.flatMap((app) =>
    IMAGE_KEYS.flatMap((key) => {
      const value = app[key];
      return value && URL_PATTERN.test(value) ? [new URL(value).origin] : [];
    }),
  );
  return [...new Set(origins)];
}
