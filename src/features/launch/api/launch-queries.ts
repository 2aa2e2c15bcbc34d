import { appQueries } from '../../../lib/queries/app-queries';

/** Query options of the launch wizard: the shared catalog's. */
export const launchQueries = {
  apps: () => appQueries.list([]),
  versions: appQueries.versions,
  profiles: appQueries.profiles,
};
