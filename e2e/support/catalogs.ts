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

/**
 * Ids with dots, versions with build metadata and text long enough to wrap, as real catalogs have: an
 * application `omni.usd_explorer` (1.2.0, 1.0.0+build.5), `sample-editor` (1.0.0, 2.0.0-rc.1+build.20240101),
 * the profile `small` for everything and `editor-only` for the editor.
 */
export const realisticCatalog = `
applications:
  - id: omni.usd_explorer
    name: USD Explorer
    description: Explore USD stages.
    tags: [viewer]
    versions:
      - { version: 1.2.0, description: Stable. }
      - { version: 1.0.0+build.5, description: Built. }
  - id: sample-editor
    name: Sample Editor
    description: Edits things, with a long description that a narrow screen has to wrap onto several lines.
    tags: [editor, test]
    versions:
      - { version: 1.0.0, description: First. }
      - { version: 2.0.0-rc.1+build.20240101, description: A candidate with a long version. }
${smallProfiles.trim()}
  - id: editor-only
    name: Editor only
    description: For the editor.
    applications: [{ id: sample-editor, versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15 }
`;
