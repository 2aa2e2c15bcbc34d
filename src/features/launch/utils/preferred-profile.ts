import type { Profile } from '../../../lib/api-client';

/**
 * The profile the wizard chooses for a person who has not chosen one: the only profile that applies, else the
 * one whose id is `default` (the catalog's own convention: the API marks no profile as the default). None
 * otherwise: with several to choose from, the person chooses.
 */
export function preferredProfile(profiles: readonly Profile[] | undefined): string | undefined {
  if (!profiles) return undefined;
  if (profiles.length === 1) return profiles[0]?.id;
  return profiles.find((p) => p.id === 'default')?.id;
}
