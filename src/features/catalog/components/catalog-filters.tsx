import { Suspense } from 'react';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import NativeSelect from '@mui/material/NativeSelect';
import OutlinedInput from '@mui/material/OutlinedInput';
import Stack from '@mui/material/Stack';
import { optionalLazy } from '../../../lib/optional-lazy';
import type { TagFilterProps } from './tag-filter';

/**
 * The tag field, shown as not usable, until its code has come (a moment after the page), or for as long as
 * that code cannot be downloaded: the catalog stays usable without it.
 */
function TagFieldUnavailable({ tags }: Pick<TagFilterProps, 'tags'>) {
  return (
    <FormControl disabled size="small" sx={{ flex: 2, minWidth: 200 }}>
      <InputLabel htmlFor="catalog-tags-waiting">Tags</InputLabel>
      <OutlinedInput id="catalog-tags-waiting" label="Tags" value={tags.join(', ')} readOnly />
    </FormControl>
  );
}

const TagFilter = optionalLazy<TagFilterProps>(() => import('./tag-filter'), TagFieldUnavailable);

/** How the catalog may be ordered. */
export type CatalogSort = 'name' | 'name-desc' | 'id';

/** Props of CatalogFilters. */
export interface CatalogFiltersProps {
  search: string;
  tags: string[];
  sort: CatalogSort;
  tagOptions: string[];
  onSearch: (value: string) => void;
  onTags: (value: string[]) => void;
  onSort: (value: CatalogSort) => void;
}

/**
 * Text search, tag filter and sort order of the catalog (state lives in the URL). All three are of the
 * theme's small size, as its text fields are, so that they stand in one line of one height.
 */
export function CatalogFilters(props: CatalogFiltersProps) {
  return (
    <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2 }}>
      <FormControl size="small" sx={{ flex: 2 }}>
        <InputLabel htmlFor="catalog-search">Search applications</InputLabel>
        <OutlinedInput
          id="catalog-search"
          label="Search applications"
          type="search"
          value={props.search}
          onChange={(e) => props.onSearch(e.target.value)}
        />
      </FormControl>
      <Suspense fallback={<TagFieldUnavailable tags={props.tags} />}>
        <TagFilter tags={props.tags} options={props.tagOptions} onTags={props.onTags} />
      </Suspense>
      {/* The browser's own list: lighter than a menu, and at home with every keyboard and screen reader. */}
      <FormControl size="small" sx={{ flex: 1, minWidth: 160 }}>
        <InputLabel htmlFor="catalog-sort" shrink>
          Sort by
        </InputLabel>
        <NativeSelect
          value={props.sort}
          onChange={(e) => props.onSort(e.target.value as CatalogSort)}
          input={<OutlinedInput id="catalog-sort" label="Sort by" notched />}
        >
          <option value="name">Name (A to Z)</option>
          <option value="name-desc">Name (Z to A)</option>
          <option value="id">Identifier</option>
        </NativeSelect>
      </FormControl>
    </Stack>
  );
}
