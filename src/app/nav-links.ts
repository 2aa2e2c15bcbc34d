/** The main navigation's pages, and which one a path belongs to. */

/** A page of the main navigation; `paths`: the paths (and the paths below them) that light it. */
export interface NavItem {
  to: string;
  label: string;
  paths: readonly string[];
}

/**
 * The main navigation, in order. The catalog is also the home page (`/`); the profiles and the capacity live
 * under `/admin`. Labels are short: the row must fit beside the sessions and the theme toggle from 900 px.
 */
export const NAV_ITEMS: readonly NavItem[] = [
  { to: '/apps', label: 'Catalog', paths: ['/', '/apps'] },
  { to: '/launch', label: 'Launch', paths: ['/launch'] },
  { to: '/sessions', label: 'Sessions', paths: ['/sessions'] },
  { to: '/admin/profiles', label: 'Profiles', paths: ['/admin'] },
  { to: '/check', label: 'Check', paths: ['/check'] },
  { to: '/settings', label: 'Settings', paths: ['/settings'] },
];

function within(pathname: string, path: string): boolean {
  if (path === '/') return pathname === '/';
  return pathname === path || pathname.startsWith(`${path}/`);
}

/**
 * The one item a page lights, or undefined (a watch link, an unknown page). One rule for the row and the
 * drawer: each link matching on its own lit none on `/` (the catalog's home) and could light two at once.
 */
export function activeNavItem(pathname: string): NavItem | undefined {
  // The longest matching path wins, so that a page below another's path belongs to the nearer one.
  let best: { item: NavItem; length: number } | undefined;
  for (const item of NAV_ITEMS)
    for (const path of item.paths)
      if (within(pathname, path) && (best === undefined || path.length > best.length))
        best = { item, length: path.length };
  return best?.item;
}
