/** Catalogs for the end-to-end tests and benchmarks that need no more than one sample application, and their parts. */

/**
 * One application `sample` (version 1.0.0) and one profile (`small` unless named) that applies to everything, at
 * `size` (the largest size a viewer may ask for too, unless given), with `settings` (YAML flow: `max_viewers: 3`).
 */
export function sampleCatalog(
  size: { width: number; height: number; fps: number; maxWidth?: number; maxHeight?: number },
  profile: { id?: string; description?: string; settings?: string } = {},
): string {
  const { width, height, fps, maxWidth = width, maxHeight = height } = size;
  const { id = 'small', description = `${width}x${height} at ${fps} fps.`, settings } = profile;
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
  - id: ${id}
    name: Small
    description: ${description}
    applications:
      - id: '*'
        versions: ['*']
    settings: { width: ${width}, height: ${height}, fps: ${fps}, max_width: ${maxWidth}, max_height: ${maxHeight}${settings ? `, ${settings}` : ''} }
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

/** The tone program, a repository file that a tone catalog's service needs beside its catalog (`beside`). */
export const TONE_FILE = 'e2e/support/tone.mjs';

/**
 * The tone program's `launch.display.command`, run in the folder that holds TONE_FILE: the tone through Debian's
 * pacat to the session's sound server, in the background, and an xterm (a session is ready once a window is mapped).
 */
export function toneCommand(): string[] {
  const play = `/usr/bin/node ${TONE_FILE} | pacat --raw --rate=48000 --channels=2 --format=s16le --latency-msec=50`;
  return ['sh', '-c', `${play} & exec xterm -bg black -fg white`];
}

/**
 * An `applications:` entry (id `tone` unless told) whose program plays a 440 Hz tone on its session's sound server
 * for as long as it runs (toneCommand). Its catalog's service needs `beside: [TONE_FILE]`.
 */
export function toneApplication(id = 'tone'): string {
  return `
  - id: ${id}
    name: Tone
    description: Plays a 440 Hz tone.
    versions:
      - version: 1.0.0
        description: A sine on the session's sound server.
        launch:
          display:
            command: ${JSON.stringify(toneCommand())}
            files: [${TONE_FILE}]`;
}

/**
 * A catalog of the tone application alone and one profile `small` (320x180 at 15 fps) for everything, with its
 * sound off where `audio` is false. Start its service with `startStack({ catalog: toneCatalog(), beside: [TONE_FILE] })`.
 */
export function toneCatalog(options: { audio?: boolean } = {}): string {
  const audio = options.audio === false ? ', audio: false' : '';
  return `
applications:${toneApplication()}
profiles:
  - id: small
    name: Small
    description: 320x180 at 15 fps.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15${audio} }
`;
}
