import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageAddress, imageOrigins, imageProblem } from '../catalog/images.ts';
import { parseCatalog } from '../catalog/load-catalog.ts';
import { catalogImages } from './catalog-images.ts';
import { contentSecurityPolicy } from '../http/security-headers.ts';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>';
/** The start of a WebP file: enough for a server that only reads and sends it. */
const WEBP = Buffer.from('RIFF\x1a\x00\x00\x00WEBPVP8 ', 'latin1');

const catalogText = `
applications:
  - id: drawn
    name: Drawn
    icon: icons/drawn app.svg
    picture: pictures/drawn.webp
    versions: [{ version: 1.0.0 }]
  - id: linked
    name: Linked
    icon: https://cdn.example/linked.png
    picture: https://shots.example/linked.webp
    versions: [{ version: 1.0.0 }]
  - id: lost
    name: Lost
    icon: icons/lost.png
    picture: pictures/lost.jpg
    versions: [{ version: 1.0.0 }]
  - id: plain
    name: Plain
    versions: [{ version: 1.0.0 }]
profiles: []
`;

let folder: string;
let app: FastifyInstance;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'catalog-images-'));
  await mkdir(path.join(folder, 'icons'));
  await writeFile(path.join(folder, 'icons', 'drawn app.svg'), SVG);
  await mkdir(path.join(folder, 'pictures'));
  await writeFile(path.join(folder, 'pictures', 'drawn.webp'), WEBP);
  await writeFile(path.join(folder, 'secret.txt'), 'not an image');
  const file = path.join(folder, 'catalog.yaml');
  app = Fastify();
  await app.register(catalogImages, { catalog: parseCatalog(catalogText, file), catalogFile: file });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('catalog icons and pictures', () => {
  it('says where each icon and picture is: its URL, or the address that serves its file', () => {
    const catalog = parseCatalog(catalogText, 'catalog.yaml');
    expect(catalog.apps.map((a) => a.icon && imageAddress('icon', a.icon))).toEqual([
      '/catalog-icons/icons/drawn%20app.svg',
      'https://cdn.example/linked.png',
      '/catalog-icons/icons/lost.png',
      undefined,
    ]);
    expect(catalog.apps.map((a) => a.picture && imageAddress('picture', a.picture))).toEqual([
      '/catalog-pictures/pictures/drawn.webp',
      'https://shots.example/linked.webp',
      '/catalog-pictures/pictures/lost.jpg',
      undefined,
    ]);
  });

  it("lets the portal's pages show the images that the catalog links to, and no other", () => {
    const origins = imageOrigins(parseCatalog(catalogText, 'catalog.yaml'));
    expect(origins).toEqual(['https://cdn.example', 'https://shots.example']);
    const policy = contentSecurityPolicy({
      publicHost: '127.0.0.1',
      extraConnect: [],
      imageSources: origins,
    });
    expect(policy).toContain("img-src 'self' data: blob: https://cdn.example https://shots.example;");
  });

  it('serves a file the catalog names, with its type', async () => {
    const res = await app.inject({ url: '/catalog-icons/icons/drawn%20app.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.body).toBe(SVG);
  });

  it('serves a picture the catalog names as it serves an icon: its type, and cached a few minutes', async () => {
    const picture = await app.inject({ url: '/catalog-pictures/pictures/drawn.webp' });
    const icon = await app.inject({ url: '/catalog-icons/icons/drawn%20app.svg' });
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/webp');
    expect(picture.rawPayload).toEqual(WEBP);
    expect(picture.headers['cache-control']).toBe(icon.headers['cache-control']);
  });

  it.each([
    '/catalog-icons/secret.txt',
    '/catalog-icons/../secret.txt',
    '/catalog-icons/icons/lost.png',
    '/catalog-pictures/pictures/lost.jpg',
    '/catalog-pictures/secret.txt',
    // Each route serves its own kind: an icon is no picture, and a picture no icon.
    '/catalog-pictures/icons/drawn%20app.svg',
    '/catalog-icons/pictures/drawn.webp',
  ])('answers 404 for %s', async (url) => {
    expect((await app.inject({ url })).statusCode).toBe(404);
  });

  it.each([
    ['icon', '/etc/passwd.png', /file in the catalog's folder/],
    ['icon', '../up.svg', /file in the catalog's folder/],
    ['icon', 'C:\\icons\\a.svg', /file in the catalog's folder/],
    ['icon', 'icons/readme.txt', /must name an image/],
    ['icon', 'javascript:alert(1)//.svg', /file in the catalog's folder/],
    [
      'picture',
      '/etc/passwd.webp',
      /"picture" must be .*file in the catalog's folder, such as pictures\/app\.webp/,
    ],
    ['picture', '../up.png', /file in the catalog's folder/],
    // A picture is a frame of the application: no drawings.
    ['picture', 'pictures/drawn.svg', /"picture" must name an image \(\.png, \.jpg, \.jpeg, \.webp\)/],
  ] as const)('refuses the %s %s in the catalog, in words', (key, value, problem) => {
    expect(imageProblem(key, value)).toMatch(problem);
    expect(() =>
      parseCatalog(
        `applications:\n  - { id: a, name: A, ${key}: '${value}', versions: [{ version: 1.0.0 }] }\nprofiles: []\n`,
        'catalog.yaml',
      ),
    ).toThrow(new RegExp(`catalog\\.yaml:2: .*${key}`));
  });

  it('tells at start of a picture file that is not beside the catalog', () => {
    const file = path.join(folder, 'catalog.yaml');
    expect(() => parseCatalog(catalogText, file, true)).toThrow(/icon file "icons\/lost.png" is not beside/);
    const withoutLostIcon = catalogText.replace('    icon: icons/lost.png\n', '');
    expect(() => parseCatalog(withoutLostIcon, file, true)).toThrow(
      /picture file "pictures\/lost.jpg" is not beside the catalog/,
    );
  });
});
