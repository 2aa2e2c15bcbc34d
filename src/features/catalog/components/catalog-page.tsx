import { useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Pagination from '@mui/material/Pagination';
import Typography from '@mui/material/Typography';
import { ErrorAlert } from '../../../components/error-alert';
import type { Application } from '../../../lib/api-client';
import { appQueries } from '../../../lib/queries/app-queries';
import { AppCard } from './app-card';
import { CatalogFilters, type CatalogSort } from './catalog-filters';

/** Applications per page: paging keeps 5,000 applications as light as 24. */
export const PAGE_SIZE = 24;

function readSort(value: string | null): CatalogSort {
  return value === 'name-desc' || value === 'id' ? value : 'name';
}

function filterAndSort(apps: Application[], search: string, sort: CatalogSort): Application[] {
  const needle = search.trim().toLowerCase();
  const found = needle
    ? apps.filter((a) =>
        `${a.name}\n${a.id}\n${a.description}\n${a.tags.join(' ')}`.toLowerCase().includes(needle),
      )
    : [...apps];
  const byName = (a: Application, b: Application) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
  if (sort === 'id') return found.sort((a, b) => a.id.localeCompare(b.id));
  return found.sort(sort === 'name-desc' ? (a, b) => byName(b, a) : byName);
}

/** The tags a catalog URL filters on (`?tags=a&tags=b` or `?tags=a,b`); the router prefetches with them. */
export function catalogTags(params: URLSearchParams): string[] {
  return params
    .getAll('tags')
    .flatMap((t) => t.split(','))
    .filter(Boolean);
}

/** The catalog: search, tag filter, sort and pages, all kept in the URL so a view can be shared. */
export function CatalogPage() {
  const [params, setParams] = useSearchParams();
  const search = params.get('q') ?? '';
  const tags = catalogTags(params);
  const sort = readSort(params.get('sort'));
  const page = Math.max(1, Number(params.get('page')) || 1);

  const list = useQuery(appQueries.list(tags));
  const allTags = useQuery({
    ...appQueries.list([]),
    select: (data) => [...new Set(data.items.flatMap((a) => a.tags))].sort(),
  });
  const shown = useMemo(() => filterAndSort(list.data?.items ?? [], search, sort), [list.data, search, sort]);
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const current = Math.min(page, pages);

  const update = (changes: Record<string, string | string[] | null>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      next.delete(key);
      if (Array.isArray(value)) value.forEach((v) => next.append(key, v));
      else if (value) next.set(key, value);
    }
    if (!('page' in changes)) next.delete('page');
    setParams(next, { replace: true });
  };

  return (
    <>
      <Typography variant="h4" component="h1" gutterBottom>
        Applications
      </Typography>
      <CatalogFilters
        search={search}
        tags={tags}
        sort={sort}
        tagOptions={[...new Set([...(allTags.data ?? []), ...tags])]}
        onSearch={(q) => update({ q })}
        onTags={(t) => update({ tags: t })}
        onSort={(s) => update({ sort: s === 'name' ? null : s })}
      />
      {list.isPending && <CircularProgress aria-label="Loading applications" />}
      {list.isError && !list.data && (
        <ErrorAlert error={list.error} what="The catalog" onRetry={() => void list.refetch()} />
      )}
      {list.data && (
        <>
          <Typography role="status" variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {shown.length === 0
              ? 'No applications match these filters.'
              : `${shown.length} application${shown.length === 1 ? '' : 's'}`}
          </Typography>
          <Box
            component="section"
            aria-label="Applications"
            sx={{ display: 'grid', gap: 2, gridTemplateColumns: 'repeat(auto-fill, minmax(260px, 1fr))' }}
          >
            {shown.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE).map((app) => (
              <AppCard key={app.id} app={app} />
            ))}
          </Box>
          {pages > 1 && (
            <Pagination
              sx={{ mt: 2 }}
              count={pages}
              page={current}
              onChange={(_e, p) => update({ page: p === 1 ? null : String(p) })}
              getItemAriaLabel={(type, p) => (type === 'page' ? `Page ${p}` : `Go to ${type} page`)}
            />
          )}
        </>
      )}
    </>
  );
}
