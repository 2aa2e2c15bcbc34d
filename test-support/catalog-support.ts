/**
 * The catalog of the catalog's tests (server/catalog/load-catalog*.test.ts): two applications whose versions are
 * listed out of SemVer order, a profile for all and one for a single version; and the error a catalog is refused with.
 */
import { expect } from 'vitest';
import { CatalogError, parseCatalog } from '../server/catalog/load-catalog.ts';

export const base = `applications:
  - id: viewer
    name: Viewer
    description: A viewer.
    tags: [a, b]
    versions:
      - version: 1.9.0
        description: Nine.
      - version: 1.10.0
        description: Ten.
      - version: 2.0.0-beta.11
      - version: 2.0.0-rc.1
      - version: 1.0.0+build.5
  - id: early
    name: Early
    description: Only previews.
    tags: [b]
    versions:
      - version: 0.1.0-alpha.2
      - version: 0.1.0-alpha.10
      - version: 0.1.0-alpha.9
profiles:
  - id: default
    name: Default
    description: Everything.
    applications:
      - id: "*"
        versions: ["*"]
  - id: ten
    name: Ten only
    description: Just 1.10.0 of viewer.
    applications:
      - id: viewer
        versions: [1.10.0]
    settings: {width: 640, height: 360, startup_timeout_s: 5}
`;
export function errorOf(text: string): string {
  try {
    parseCatalog(text, 'cat.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return (error as Error).message;
  }
  throw new Error('the catalog was accepted');
}
