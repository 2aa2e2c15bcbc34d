/** Catalogs for the end-to-end tests and benchmarks that need no more than one sample application, and their parts. */

/** One application `sample` (version 1.0.0) and one profile `small` that applies to everything. */
export function sampleCatalog(size: { width: number; height: number; fps: number }): string {
  const { width, height, fps } = size;
  return `
applications:
  - id: sample
    name: Sample Viewer
    description: The sample streaming application.
    tags: [test]
    versions:
      - version: 1.0.0
        description: Test build.
profiles:
  - id: small
    name: Small
    description: ${width}x${height} at ${fps} fps.
    applications:
      - id: '*'
        versions: ['*']
    settings: { width: ${width}, height: ${height}, fps: ${fps}, max_width: ${width}, max_height: ${height} }
`;
}

/** The `profiles:` section of a catalog with one profile `small` (320x180 at 15 fps) that applies to everything. */
export const smallProfiles = `
profiles:
  - id: small
    name: Small
    description: 320x180 at 15 fps.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15 }
`;
