import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iconAddress, iconOrigins, iconProblem } from '../catalog/icons.ts';
import { parseCatalog } from '../catalog/load-catalog.ts';
import { catalogIcons } from './catalog-icons.ts';
import { contentSecurityPolicy } from './security-headers.ts';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>';

const catalogText = `
applications:
  - id: drawn
    name: Drawn
    icon: icons/drawn app.svg
    versions: [{ version: 1.0.0 }]
  - id: linked
    name: Linked
    icon: https://cdn.example/linked.png
    versions: [{ version: 1.0.0 }]
  - id: lost
    name: Lost
    icon: icons/lost.png
    versions: [{ version: 1.0.0 }]
  - id: plain
    name: Plain
    versions: [{ version: 1.0.0 }]
profiles: []
`;

let folder: string;
let app: FastifyInstance;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'catalog-icons-'));
  await mkdir(path.join(folder, 'icons'));
  await writeFile(path.join(folder, 'icons', 'drawn app.svg'), SVG);
  await writeFile(path.join(folder, 'secret.txt'), 'not an icon');
  const file = path.join(folder, 'catalog.yaml');
  app = Fastify();
  await app.register(catalogIcons, { catalog: parseCatalog(catalogText, file), catalogFile: file });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('catalog icons', () => {
  it('says where each icon is: its URL, or the address that serves its file', () => {
    const catalog = parseCatalog(catalogText, 'catalog.yaml');
    expect(catalog.apps.map((a) => a.icon && iconAddress(a.icon))).toEqual([
      '/catalog-icons/icons/drawn%20app.svg',
      'https://cdn.example/linked.png',
      '/catalog-icons/icons/lost.png',
      undefined,
    ]);
  });

  it("lets the portal's pages show the icons that the catalog links to, and no other", () => {
    const origins = iconOrigins(parseCatalog(catalogText, 'catalog.yaml'));
    expect(origins).toEqual(['https://cdn.example']);
    const policy = contentSecurityPolicy({
      publicHost: '127.0.0.1',
      extraConnect: [],
      imageSources: origins,
    });
    expect(policy).toContain("img-src 'self' data: blob: https://cdn.example;");
  });

  it('serves a file the catalog names, with its type', async () => {
    const res = await app.inject({ url: '/catalog-icons/icons/drawn%20app.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.body).toBe(SVG);
  });

  it.each(['/catalog-icons/secret.txt', '/catalog-icons/../secret.txt', '/catalog-icons/icons/lost.png'])(
    'answers 404 for %s',
    async (url) => {
      expect((await app.inject({ url })).statusCode).toBe(404);
    },
  );

  it.each([
    ['/etc/passwd.png', /file in the catalog's folder/],
    ['../up.svg', /file in the catalog's folder/],
    ['C:\\icons\\a.svg', /file in the catalog's folder/],
    ['icons/readme.txt', /must name an image/],
    ['javascript:alert(1)//.svg', /file in the catalog's folder/],
  ])('refuses the icon %s in the catalog, in words', (icon, problem) => {
    expect(iconProblem(icon)).toMatch(problem);
    expect(() =>
      parseCatalog(
        `applications:\n  - { id: a, name: A, icon: '${icon}', versions: [{ version: 1.0.0 }] }\nprofiles: []\n`,
        'catalog.yaml',
      ),
    ).toThrow(/catalog\.yaml:2: .*icon/);
  });
});
