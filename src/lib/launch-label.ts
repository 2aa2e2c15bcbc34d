/** "USD Viewer 1.2.0 (Light)": how the portal names what a session runs; undefined without an application. */
export function launchLabel(
  app: string | undefined,
  version: string | undefined,
  profile: string | undefined,
): string | undefined {
  return app ? [app, version, profile && `(${profile})`].filter(Boolean).join(' ') : undefined;
}
